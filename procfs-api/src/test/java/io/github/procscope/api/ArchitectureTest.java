package io.github.procscope.api;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.github.procscope.archrules.PackageCycles;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The API module's architecture as rules: interfaces, options and records only, reached through one front door
 * ({@link Procscope}), using nothing of an implementation, of JNA or of {@code sun.misc}, and requiring nothing
 * beyond {@code java.base}. Each rule is also checked against planted violations (test classes under
 * {@code io.github.procscope.planted}), which it must reject: a rule that cannot fail holds nothing.
 */
class ArchitectureTest {
    private static final String API = "io.github.procscope.api";
    private static final String PLANTED = "io.github.procscope.planted.api";

    private static final JavaClasses API_CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(API);
    private static final JavaClasses PLANTED_CLASSES = new ClassFileImporter().importPackages(PLANTED);

    /**
     * Every package under {@code base}, the root package itself included, is a slice of its own, and the slices
     * import each other without a cycle: the front door and the SPI above the feature packages, the base types
     * ({@code core}) below them.
     */
    static ArchRule packagesFreeOfCycles(String base) {
        return PackageCycles.freeOfCycles(base);
    }

    /** Nothing under {@code base} uses an implementation module, JNA, jnr or the JDK's unsupported classes. */
    static ArchRule usesNoImplementationOrNativeCode(String base) {
        return noClasses().that().resideInAPackage(base + "..").should().dependOnClassesThat()
                .resideInAnyPackage("io.github.procscope.linux..", "io.github.procscope.nvml..",
                        "io.github.procscope.kubernetes..", "io.github.procscope.metrics..",
                        "io.github.procscope.cli..", "com.sun.jna..", "jnr..", "com.kenai..", "sun..", "com.sun..",
                        "jdk.internal..")
                .because("the API holds interfaces, options and records; the implementations are found at run"
                        + " time through the SPI");
    }

    /**
     * No public static method under {@code base} but the front door's hands out a service: an interface of the
     * API that a caller cannot construct (not sealed), or anything to close.
     */
    static ArchRule noStaticDoorBesideTheFrontDoor(String base, String frontDoor) {
        return methods().that().areDeclaredInClassesThat().resideInAPackage(base + "..")
                .and().areDeclaredInClassesThat().doNotHaveFullyQualifiedName(frontDoor)
                .and().arePublic().and().areStatic()
                .should(notHandOutAService(base))
                .because("every reader, sender, guard and monitor comes from " + frontDoor);
    }

    private static ArchCondition<JavaMethod> notHandOutAService(String base) {
        return new ArchCondition<>("not hand out a service") {
            @Override
            public void check(JavaMethod method, ConditionEvents events) {
                JavaClass returned = method.getRawReturnType();
                boolean service = returned.isAssignableTo(AutoCloseable.class)
                        || (returned.isInterface() && returned.getPackageName().startsWith(base)
                        && !returned.reflect().isSealed());
                if (service) {
                    events.add(SimpleConditionEvent.violated(method, method.getFullName() + " is a static door to "
                            + returned.getName() + " beside the front door"));
                }
            }
        };
    }

    /** No feature package refers to the front door: only the root package (front door and SPI) does. */
    static ArchRule onlyTheRootRefersToTheFrontDoor(String base, String frontDoor) {
        return noClasses().that().resideInAPackage(base + "..")
                .and().resideOutsideOfPackage(base)
                .should().dependOnClassesThat().haveFullyQualifiedName(frontDoor)
                .because("a reader that opens the front door itself makes an import loop through it");
    }

    @Test
    void packagesHaveNoCycleRootIncluded() {
        packagesFreeOfCycles(API).check(API_CLASSES);
    }

    @Test
    void theApiUsesNothingOfAnImplementationOrOfNativeCode() {
        usesNoImplementationOrNativeCode(API).check(API_CLASSES);
    }

    @Test
    void onlyProcscopeHasStaticDoors() {
        noStaticDoorBesideTheFrontDoor(API, Procscope.class.getName()).check(API_CLASSES);
    }

    @Test
    void noReaderOpensTheFrontDoorItself() {
        onlyTheRootRefersToTheFrontDoor(API, Procscope.class.getName()).check(API_CLASSES);
    }

    @Test
    void theModuleRequiresOnlyJavaBase() throws Exception {
        ModuleDescriptor module = descriptorOf(Procscope.class);
        assertEquals("io.github.procscope.api", module.name());
        Set<String> requires = new TreeSet<>();
        module.requires().forEach(r -> requires.add(r.name()));
        assertEquals(Set.of("java.base"), requires, module.toString());
    }

    @Test
    void eachRuleRejectsItsPlantedViolation() {
        String frontDoor = PLANTED + ".FrontDoor";
        AssertionError cycle = assertThrows(AssertionError.class,
                () -> packagesFreeOfCycles(PLANTED).check(PLANTED_CLASSES));
        assertTrue(cycle.getMessage().contains("planted.api.one.One"), cycle.getMessage());
        assertTrue(cycle.getMessage().contains("planted.api.three.Three"), "through the root: " + cycle.getMessage());
        AssertionError foreign = assertThrows(AssertionError.class,
                () -> usesNoImplementationOrNativeCode(PLANTED).check(PLANTED_CLASSES));
        assertTrue(foreign.getMessage().contains("NativeThing"), foreign.getMessage());
        AssertionError door = assertThrows(AssertionError.class,
                () -> noStaticDoorBesideTheFrontDoor(PLANTED, frontDoor).check(PLANTED_CLASSES));
        assertTrue(door.getMessage().contains("SideDoor.open()"), door.getMessage());
        assertTrue(!door.getMessage().contains("SideDoor.thing()"), "a class, not a service: " + door.getMessage());
        AssertionError loop = assertThrows(AssertionError.class,
                () -> onlyTheRootRefersToTheFrontDoor(PLANTED, frontDoor).check(PLANTED_CLASSES));
        assertTrue(loop.getMessage().contains("One.through"), loop.getMessage());
    }

    /** Reads the compiled module descriptor beside {@code member}: in a classes directory or in a jar. */
    private static ModuleDescriptor descriptorOf(Class<?> member) throws Exception {
        Path location = Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isDirectory(location)) {
            try (InputStream in = Files.newInputStream(location.resolve("module-info.class"))) {
                return ModuleDescriptor.read(in);
            }
        }
        try (JarFile jar = new JarFile(location.toFile());
             InputStream in = jar.getInputStream(jar.getEntry("module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }
}
