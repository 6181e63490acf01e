package io.github.procscope.kubernetes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.github.procscope.archrules.PackageCycles;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The Kubernetes module's packages: the stubs generated from the {@code .proto} files ({@code cri},
 * {@code podresources}) below the hand-written root package, which alone uses them; no package cycle; nothing of
 * another implementation module. Each rule is shown failing on planted violations under {@code planted}.
 */
class ArchitectureTest {
    private static final String BASE = "io.github.procscope.kubernetes";

    private static JavaClasses main() {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(BASE);
    }

    static ArchRule noPackageCycles(String base) {
        return PackageCycles.freeOfCycles(base);
    }

    static ArchRule generatedStubsStandAlone(String base) {
        return noClasses().that().resideInAnyPackage(base + ".cri..", base + ".podresources..")
                .should().dependOnClassesThat().resideInAPackage(base)
                .because("the generated stubs are the protocol, below the code that uses them");
    }

    static ArchRule noOtherImplementationModule(String base) {
        return noClasses().that().resideInAPackage(base + "..").should().dependOnClassesThat()
                .resideInAnyPackage("io.github.procscope.linux..", "io.github.procscope.nvml..",
                        "io.github.procscope.metrics..", "io.github.procscope.cli..")
                .because("the module is optional and stands on the API alone");
    }

    static List<ArchRule> rules(String base) {
        return List.of(noPackageCycles(base), generatedStubsStandAlone(base), noOtherImplementationModule(base));
    }

    @Test
    void theRulesHold() {
        JavaClasses main = main();
        for (ArchRule rule : rules(BASE)) {
            rule.check(main);
        }
    }

    @Test
    void everyRuleFailsOnAPlantedViolation() {
        JavaClasses planted = new ClassFileImporter().importPackages(BASE + ".planted");
        List<ArchRule> rules = rules(BASE + ".planted");
        assertEquals(3, rules.size());
        for (ArchRule rule : rules) {
            assertThrows(AssertionError.class, () -> rule.check(planted), rule.getDescription());
        }
    }
}
