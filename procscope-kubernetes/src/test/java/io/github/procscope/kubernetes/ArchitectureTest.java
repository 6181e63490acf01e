package io.github.procscope.kubernetes;

import com.tngtech.archunit.lang.ArchRule;
import io.github.procscope.archrules.ModuleRules;
import io.github.procscope.archrules.PackageCycles;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The Kubernetes module's packages: the stubs generated from the {@code .proto} files ({@code cri},
 * {@code podresources}) below the hand-written root package, which alone uses them; no package cycle; nothing of
 * another implementation module. Each rule is shown failing on planted violations under {@code planted}.
 */
class ArchitectureTest {
    private static final String BASE = "io.github.procscope.kubernetes";

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
        ModuleRules.holdOverMain(BASE, ArchitectureTest::rules);
    }

    @Test
    void everyRuleFailsOnAPlantedViolation() {
        ModuleRules.failOnPlanted(BASE, ArchitectureTest::rules, 3);
    }
}
