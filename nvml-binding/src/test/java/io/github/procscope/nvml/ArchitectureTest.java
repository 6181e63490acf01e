package io.github.procscope.nvml;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.github.procscope.api.Procscope;
import org.junit.jupiter.api.Test;

import java.net.URL;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The NVML module's architecture as rules: no package cycle with the API it implements, nothing of another
 * implementation or of a front end, JNA kept out of the API, and no public static door beside the front door in
 * any implementation. This module's tests see both implementations (procfs-impl-linux is on their class path),
 * so the door rule is checked here over both. Each rule is also checked against a planted violation
 * ({@code io.github.procscope.nvml.planted}), which it must reject.
 */
class ArchitectureTest {
    private static final String NVML = "io.github.procscope.nvml";

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(NVML, "io.github.procscope.api");

    /** The Linux implementation's own classes, wherever its classes directory or jar is. */
    private static JavaClasses linuxMain() {
        URL where = Procscope.system().getClass().getProtectionDomain().getCodeSource().getLocation();
        return new ClassFileImporter().importUrl(where);
    }

    /** The modules' top packages ({@code api}, {@code nvml}, ...) import each other without a cycle. */
    static ArchRule modulesFreeOfCycles() {
        return slices().matching("io.github.procscope.(*)..").should().beFreeOfCycles();
    }

    /** This module uses no other implementation and no front end. */
    static ArchRule usesNoOtherImplementation() {
        return noClasses().that().resideInAPackage(NVML + "..").should().dependOnClassesThat()
                .resideInAnyPackage("io.github.procscope.linux..", "io.github.procscope.kubernetes..",
                        "io.github.procscope.metrics..", "io.github.procscope.cli..", "jnr..")
                .because("the GPU implementation is reached through the API's SPI and reads processes through it");
    }

    /** No API type uses JNA: the binding's types stay behind the SPI. */
    static ArchRule apiKnowsNoJna() {
        return noClasses().that().resideInAPackage("io.github.procscope.api..").should().dependOnClassesThat()
                .resideInAnyPackage("com.sun.jna..");
    }

    /**
     * No implementation class has a public static door onto the live system: a method without parameters, or
     * named {@code system} or {@code open}, that hands out a service (an API interface or an implementation of
     * one), nor one without parameters that hands out anything to close. Rooted factories, which take the root
     * or the readers they join, are the platform's wiring and stay, as do the native floor's handles opened on
     * a given file or socket.
     */
    static ArchRule noStaticDoorInAnImplementation(String base) {
        return methods().that().areDeclaredInClassesThat().resideInAPackage(base + "..")
                .and().arePublic().and().areStatic()
                .should(notOpenTheLiveSystem())
                .because("an implementation is reached only through Procscope.system() and Procscope.at(...)")
                .allowEmptyShould(true); // a module with no public static method at all keeps the rule
    }

    private static ArchCondition<JavaMethod> notOpenTheLiveSystem() {
        return new ArchCondition<>("not open the live system") {
            @Override
            public void check(JavaMethod method, ConditionEvents events) {
                boolean noArguments = method.getRawParameterTypes().isEmpty();
                boolean named = method.getName().equals("system") || method.getName().equals("open");
                JavaClass returned = method.getRawReturnType();
                boolean service = isApiService(returned)
                        || returned.getAllRawInterfaces().stream().anyMatch(ArchitectureTest::isApiService);
                if ((service && (noArguments || named))
                        || (noArguments && returned.isAssignableTo(AutoCloseable.class))) {
                    events.add(SimpleConditionEvent.violated(method, method.getFullName()
                            + " is a static door to " + returned.getName() + " beside the front door"));
                }
            }
        };
    }

    private static boolean isApiService(JavaClass type) {
        return type.isInterface() && type.getPackageName().startsWith("io.github.procscope.api")
                && !type.reflect().isSealed();
    }

    @Test
    void noPackageCycleBetweenThisModuleAndTheApi() {
        modulesFreeOfCycles().check(MAIN);
    }

    @Test
    void usesNoOtherImplementationOrFrontEnd() {
        usesNoOtherImplementation().check(MAIN);
    }

    @Test
    void theApiUsesNoJna() {
        apiKnowsNoJna().check(MAIN);
    }

    @Test
    void noStaticDoorInTheGpuImplementation() {
        noStaticDoorInAnImplementation(NVML).check(MAIN);
    }

    @Test
    void noStaticDoorInTheLinuxImplementation() {
        JavaClasses linux = linuxMain();
        assertTrue(linux.containPackage("io.github.procscope.linux"), "the Linux classes were found");
        noStaticDoorInAnImplementation("io.github.procscope.linux").check(linux);
    }

    @Test
    void theDoorRuleRejectsItsPlantedViolation() {
        JavaClasses planted = new ClassFileImporter().importPackages(NVML + ".planted");
        AssertionError e = assertThrows(AssertionError.class,
                () -> noStaticDoorInAnImplementation(NVML + ".planted").check(planted));
        assertTrue(e.getMessage().contains("LiveDoor.open()"), e.getMessage());
    }
}
