package io.github.procscope.archrules;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package-cycle rule every module's {@code ArchitectureTest} checks: each package under a base package, the base
 * itself included, is a slice of its own, and the slices import each other without a cycle. (ArchUnit's
 * {@code slices().matching(...)} patterns cannot make the base package a slice beside its sub-packages.)
 */
public final class PackageCycles {
    private PackageCycles() {
    }

    /**
     * @param base a package name, such as {@code io.github.procscope.api}
     * @return the rule: no cycle among {@code base} and the packages below it
     */
    public static ArchRule freeOfCycles(String base) {
        return slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String pkg = javaClass.getPackageName();
                return pkg.equals(base) || pkg.startsWith(base + ".") ? SliceIdentifier.of(pkg)
                        : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "every package under " + base + ", itself included";
            }
        }).should().beFreeOfCycles();
    }
}
