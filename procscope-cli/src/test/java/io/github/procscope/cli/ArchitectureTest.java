package io.github.procscope.cli;

import com.tngtech.archunit.lang.ArchRule;
import io.github.procscope.archrules.ModuleRules;
import io.github.procscope.archrules.PackageCycles;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The tool's packages: the root package (the commands) above its leaves {@code lab} (the lab commands'
 * scenarios) and {@code demo} (the demo training loop), which use the API and never the commands; no package cycle; no class naming
 * an implementation module (the platform, the GPUs and Kubernetes names come through {@code Procscope}). Each
 * rule is shown failing on planted violations under {@code cli.planted}.
 */
class ArchitectureTest {
    private static final String BASE = "io.github.procscope.cli";

    static ArchRule noPackageCycles(String base) {
        return PackageCycles.freeOfCycles(base);
    }

    static ArchRule noImplementationModule(String base) {
        return noClasses().that().resideInAPackage(base + "..").should().dependOnClassesThat()
                .resideInAnyPackage("io.github.procscope.linux..", "io.github.procscope.nvml..",
                        "io.github.procscope.kubernetes..")
                .because("the tool reaches every implementation through Procscope");
    }

    static ArchRule leavesDoNotUseTheCommands(String base) {
        return noClasses().that().resideInAnyPackage(base + ".lab..", base + ".demo..").should()
                .dependOnClassesThat().resideInAPackage(base)
                .because("the lab scenarios and the demo loop are API users like any other; the commands call them");
    }

    static List<ArchRule> rules(String base) {
        return List.of(noPackageCycles(base), noImplementationModule(base), leavesDoNotUseTheCommands(base));
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
