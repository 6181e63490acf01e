package io.github.procscope.metrics;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.github.procscope.archrules.ModuleRules;
import io.github.procscope.archrules.PackageCycles;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The module's floors: {@code model} (a family's definition, a scrape's series) below {@code family} (one class per
 * metric family or small group of families sharing a source), below the collector and the Micrometer binders; the
 * HTTP server beside the families, neither knowing the other.
 */
class ArchitectureTest {
    private static final String BASE = "io.github.procscope.metrics";
    /** The HTTP server's classes, in the module's root package. */
    private static final Set<String> SERVER = Set.of("MetricsServer", "HttpLoop", "HttpRequestHead", "HttpReply",
            "ListenAddress");

    private static JavaClasses main() {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(BASE);
    }

    /** A class of the HTTP server of the module rooted at {@code base} (nested classes included). */
    private static DescribedPredicate<JavaClass> server(String base) {
        return DescribedPredicate.describe("the HTTP server of " + base, c -> {
            JavaClass top = c;
            while (top.getEnclosingClass().isPresent()) {
                top = top.getEnclosingClass().get();
            }
            return top.getPackageName().equals(base) && SERVER.contains(top.getSimpleName());
        });
    }

    static ArchRule noPackageCycles(String base) {
        return PackageCycles.freeOfCycles(base);
    }

    static ArchRule familiesDoNotKnowTheServer(String base) {
        return noClasses().that().resideInAPackage(base + ".family..").should().dependOnClassesThat(server(base));
    }

    static ArchRule serverDoesNotKnowTheFamilies(String base) {
        return noClasses().that(server(base)).should().dependOnClassesThat().resideInAPackage(base + ".family..");
    }

    static List<ArchRule> rules(String base) {
        return List.of(noPackageCycles(base), familiesDoNotKnowTheServer(base), serverDoesNotKnowTheFamilies(base));
    }

    @Test
    void theRulesHold() {
        ModuleRules.holdOverMain(BASE, ArchitectureTest::rules);
    }

    @Test
    void familiesStandOnTheModelAndTheApiOnly() {
        classes().that().resideInAPackage(BASE + ".family..").should().onlyDependOnClassesThat()
                .resideInAnyPackage(BASE + ".family..", BASE + ".model..", "io.github.procscope.api..",
                        "io.prometheus.metrics.model..", "java..")
                .check(main());
        classes().that().resideInAPackage(BASE + ".model..").should().onlyDependOnClassesThat()
                .resideInAnyPackage(BASE + ".model..", "io.prometheus.metrics.model..", "java..")
                .check(main());
    }

    @Test
    void everyRuleFailsOnAPlantedViolation() {
        ModuleRules.failOnPlanted(BASE, ArchitectureTest::rules, 3);
    }
}
