package io.github.procscope.archrules;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * How a module's {@code ArchitectureTest} checks its rules: each rule is made for a base package, holds over the
 * module's main classes under its real base, and fails over the planted violations under {@code base.planted}
 * (test classes that break every rule once): a rule that cannot fail holds nothing.
 */
public final class ModuleRules {
    private ModuleRules() {
    }

    /**
     * @param base  the module's root package
     * @param rules the module's rules, made for a given base package
     * @throws AssertionError naming the first rule the main classes break
     */
    public static void holdOverMain(String base, Function<String, List<ArchRule>> rules) {
        JavaClasses main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(base);
        for (ArchRule rule : rules.apply(base)) {
            rule.check(main);
        }
    }

    /**
     * @param base     the module's root package; the planted violations are under {@code base.planted}
     * @param rules    the module's rules, made for a given base package
     * @param expected how many rules the module has (so a rule dropped from the list is noticed)
     * @throws AssertionError when a rule accepts the planted classes
     */
    public static void failOnPlanted(String base, Function<String, List<ArchRule>> rules, int expected) {
        JavaClasses planted = new ClassFileImporter().importPackages(base + ".planted");
        List<ArchRule> made = rules.apply(base + ".planted");
        assertEquals(expected, made.size());
        for (ArchRule rule : made) {
            assertThrows(AssertionError.class, () -> rule.check(planted), rule.getDescription());
        }
    }
}
