package io.github.procscope.linux;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.events.ProcessEvents;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.job.JobSupervisor;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.system.SystemResources;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.sys.NativeWall;
import io.github.procscope.linux.sys.ProcBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The floors of this module, as rules over its compiled classes (ArchUnit): each floor imports only floors below
 * it, and the packages of one floor do not import each other; no package cycle; the native wall (jnr, jffi, JNA,
 * {@code java.lang.foreign}, {@code sun.misc}) only in {@code sys}, and its back ends made by the chooser
 * ({@code NativeWalls}) alone; no class in the root package; a service is made (its factory called) only by the
 * platform, which hands it to the floors that need it. Each rule is
 * also shown to fail on a planted violation (classes that exist only in the test sources), and the floor table
 * of ARCHITECTURE.md is held to the same floors and to the packages the code has.
 */
class ArchitectureTest {
    private static final String BASE = "io.github.procscope.linux";

    /** The floors, lowest first; the packages of one floor, relative to {@link #BASE}. */
    static final List<List<String>> FLOORS = List.of(
            List.of("sys.internal"),
            List.of("sys"),
            List.of("parse"),
            List.of("proc"),
            List.of("events", "signals", "doctor"),
            List.of("jobs"),
            List.of("platform"));

    /** The module's own classes: target/classes, not the tests. */
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(BASE);

    /** The planted violations and what they reach, from the test sources. */
    private static final JavaClasses PLANTED = new ClassFileImporter().importClasses(
            classNamed(BASE + ".sys.PlantedUpwardImport"), LinuxProcfs.class, ProcBuffer.class,
            classNamed(BASE + ".parse.PlantedNativeCall"), classNamed(BASE + ".PlantedRootClass"),
            classNamed(BASE + ".sys.PlantedBackEndLoad"), classNamed(BASE + ".sys.JnrWall"), NativeWall.class,
            classNamed(BASE + ".proc.PlantedFactoryCall"));

    private static Class<?> classNamed(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("the planted violation " + name + " is missing", e);
        }
    }

    private static String layerName(String pkg) {
        return pkg.replace('.', '_');
    }

    /**
     * Every package a layer; a package may be reached only from packages of floors above its own (so not from
     * its own floor's other packages). Each package is its own layer: a subpackage ({@code sys.internal}) is
     * not part of its parent's.
     */
    static ArchRule floorsImportOnlyFloorsBelow() {
        Architectures.LayeredArchitecture arch = Architectures.layeredArchitecture()
                .consideringOnlyDependenciesInLayers().withOptionalLayers(true);
        for (List<String> floor : FLOORS) {
            for (String pkg : floor) {
                arch = arch.layer(layerName(pkg)).definedBy(BASE + "." + pkg);
            }
        }
        for (int i = 0; i < FLOORS.size(); i++) {
            for (String pkg : FLOORS.get(i)) {
                List<String> above = new ArrayList<>();
                for (int j = i + 1; j < FLOORS.size(); j++) {
                    FLOORS.get(j).forEach(p -> above.add(layerName(p)));
                }
                arch = above.isEmpty() ? arch.whereLayer(layerName(pkg)).mayNotBeAccessedByAnyLayer()
                        : arch.whereLayer(layerName(pkg)).mayOnlyBeAccessedByLayers(above.toArray(String[]::new));
            }
        }
        return arch;
    }

    static ArchRule noPackageCycles() {
        return slices().matching(BASE + ".(**)").should().beFreeOfCycles();
    }

    static ArchRule nativeWallOnlyInSys() {
        return noClasses().that().resideOutsideOfPackage(BASE + ".sys..")
                .should().dependOnClassesThat().resideInAnyPackage("jnr..", "com.kenai.jffi..", "com.sun.jna..",
                        "sun.misc..", "java.lang.foreign..")
                .because("native calls are made behind the wall, in the sys floor, only");
    }

    /**
     * A back end of the wall (a class implementing {@link NativeWall}) is made, loaded or called by name only by
     * {@code NativeWalls}, which chooses one per JVM, and by its own code (its nested classes included):
     * everything else receives a {@code NativeWall}.
     */
    static ArchRule onlyTheChooserMakesABackEnd() {
        String chooser = BASE + ".sys.NativeWalls";
        return classes().that().implement(NativeWall.class)
                .should(new ArchCondition<JavaClass>("be reached only by " + chooser + " and their own code") {
                    @Override
                    public void check(JavaClass backEnd, ConditionEvents events) {
                        for (JavaAccess<?> access : backEnd.getAccessesToSelf()) {
                            String origin = access.getOriginOwner().getName();
                            int nested = origin.indexOf('$');
                            String top = nested < 0 ? origin : origin.substring(0, nested);
                            if (!top.equals(chooser) && !top.equals(backEnd.getName())) {
                                events.add(SimpleConditionEvent.violated(access, access.getDescription()));
                            }
                        }
                    }
                })
                .because("one back end per JVM, chosen in one place");
    }

    /** The API's services: what {@code Procscope} hands out, each made by a factory of this module. */
    static final List<Class<?>> SERVICES = List.of(ProcessTable.class, Signals.class, OpenFiles.class,
            ProcessMemory.class, SystemResources.class, KernelLog.class, ProcessEvents.class, JobSupervisor.class,
            Doctor.class);

    private static boolean isService(JavaClass type) {
        return SERVICES.stream().anyMatch(type::isAssignableTo);
    }

    /**
     * @return whether the method is a service factory: public and static, returning a service or a builder of one
     *         (a type whose {@code build()} returns a service)
     */
    static boolean makesAService(JavaMethod m) {
        if (!m.getModifiers().containsAll(Set.of(JavaModifier.PUBLIC, JavaModifier.STATIC))) {
            return false;
        }
        JavaClass type = m.getRawReturnType();
        return isService(type) || type.getMethods().stream()
                .anyMatch(b -> b.getName().equals("build") && isService(b.getRawReturnType()));
    }

    private static String topLevel(String className) {
        int nested = className.indexOf('$');
        return nested < 0 ? className : className.substring(0, nested);
    }

    /**
     * A service factory is called (or referred to) only by the platform ({@code LinuxProcscope}) and by its own
     * class: a floor is handed the services it needs, so that a {@code Procscope} over another root never reads
     * the live {@code /proc} or {@code /sys} through a floor that opened them itself.
     */
    static ArchRule serviceFactoriesOnlyInThePlatform() {
        String platform = BASE + ".platform";
        return methods().that().areDeclaredInClassesThat().resideInAPackage(BASE + "..")
                .and(describe("make a service", ArchitectureTest::makesAService))
                .should(new ArchCondition<JavaMethod>("be called only by " + platform + " and their own class") {
                    @Override
                    public void check(JavaMethod factory, ConditionEvents events) {
                        String owner = topLevel(factory.getOwner().getName());
                        for (JavaAccess<?> access : factory.getAccessesToSelf()) {
                            JavaClass origin = access.getOriginOwner();
                            if (!origin.getPackageName().equals(platform)
                                    && !topLevel(origin.getName()).equals(owner)) {
                                events.add(SimpleConditionEvent.violated(access, access.getDescription()));
                            }
                        }
                    }
                })
                .because("the platform is the one place that wires the services");
    }

    static ArchRule rootPackageHoldsNoClass() {
        return noClasses().that().doNotHaveSimpleName("package-info").should().resideInAPackage(BASE)
                .because("the code lives on floors; the root package holds only package-info");
    }

    static ArchRule everyClassOnAFloor() {
        String[] packages = FLOORS.stream().flatMap(List::stream).map(p -> BASE + "." + p).toArray(String[]::new);
        return classes().that().resideInAPackage(BASE + "..").and().doNotHaveSimpleName("package-info")
                .should().resideInAnyPackage(packages).allowEmptyShould(true);
    }

    @Test
    void floorsImportOnlyFloorsBelowThem() {
        floorsImportOnlyFloorsBelow().check(MAIN);
    }

    @Test
    void noPackageCycle() {
        noPackageCycles().check(MAIN);
    }

    @Test
    void theNativeWallIsOnlyInSys() {
        nativeWallOnlyInSys().check(MAIN);
    }

    @Test
    void onlyTheChooserMakesABackEndOfTheWall() {
        onlyTheChooserMakesABackEnd().check(MAIN);
    }

    @Test
    void onlyThePlatformCallsAServiceFactory() {
        serviceFactoriesOnlyInThePlatform().check(MAIN);
    }

    @Test
    void theServiceFactoriesAreFound() {
        // A rule over no factory would pass: the predicate must find the factories of every service.
        Set<String> found = MAIN.stream().flatMap(c -> c.getMethods().stream())
                .filter(ArchitectureTest::makesAService)
                .map(m -> m.getOwner().getSimpleName() + "." + m.getName())
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> expected = Set.of("LinuxProcfs.at", "LinuxProcfs.builder", "LinuxOpenFiles.at",
                "LinuxSystemResources.at", "LinuxProcessMemory.at", "LinuxKernelLog.at", "LinuxSignals.using",
                "LinuxSignals.readingOnly", "LinuxProcessEvents.of", "LinuxProcessEvents.diffingOnly",
                "LinuxJobSupervisor.using", "LinuxDoctor.builder");
        assertTrue(found.containsAll(expected), "service factories found: " + found);
    }

    @Test
    void theRootPackageHoldsNoClass() {
        rootPackageHoldsNoClass().check(MAIN);
    }

    @Test
    void everyClassLivesOnAFloorOfTheTable() {
        everyClassOnAFloor().check(MAIN);
    }

    @Test
    void testPackagesMirrorMainPackages() {
        // A test lives in the package of the code it tests; only this class and its planted root class sit in
        // the root package.
        Set<String> main = MAIN.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        JavaClasses tests = new ClassFileImporter().withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                .importPackages(BASE);
        Set<String> strays = tests.stream().map(JavaClass::getPackageName)
                .filter(p -> !p.equals(BASE) && !main.contains(p)).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(tests.size() > 100, "test classes imported: " + tests.size());
        assertEquals(Set.of(), strays, "test packages without a main package");
        Set<String> inRoot = tests.stream().filter(c -> c.getPackageName().equals(BASE))
                .map(c -> c.getSimpleName().isEmpty() ? c.getName() : c.getSimpleName())
                .filter(n -> !n.contains("$")).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(Set.of("ArchitectureTest", "PlantedRootClass")), inRoot);
    }

    @Test
    void theClassesWereImported() {
        // A rule over nothing would pass: the import must hold the module's classes, FfmWall among them when the
        // FFM back end was built.
        assertTrue(MAIN.size() > 150, "classes imported: " + MAIN.size());
        assertTrue(MAIN.contain(BASE + ".platform.LinuxPlatform"));
        assertFalse(MAIN.contain(BASE + ".sys.PlantedUpwardImport"), "tests are not the module's classes");
    }

    @Test
    void eachRuleFailsOnAPlantedViolation() {
        AssertionError upward = assertThrows(AssertionError.class, () -> floorsImportOnlyFloorsBelow().check(PLANTED));
        assertTrue(upward.getMessage().contains("PlantedUpwardImport"), upward.getMessage());
        AssertionError cycle = assertThrows(AssertionError.class, () -> noPackageCycles().check(PLANTED));
        assertTrue(cycle.getMessage().contains("PlantedUpwardImport"), cycle.getMessage());
        AssertionError wall = assertThrows(AssertionError.class, () -> nativeWallOnlyInSys().check(PLANTED));
        assertTrue(wall.getMessage().contains("PlantedNativeCall"), wall.getMessage());
        AssertionError backEnd = assertThrows(AssertionError.class, () -> onlyTheChooserMakesABackEnd().check(PLANTED));
        assertTrue(backEnd.getMessage().contains("PlantedBackEndLoad"), backEnd.getMessage());
        AssertionError factory = assertThrows(AssertionError.class,
                () -> serviceFactoriesOnlyInThePlatform().check(PLANTED));
        assertTrue(factory.getMessage().contains("PlantedFactoryCall"), factory.getMessage());
        AssertionError root = assertThrows(AssertionError.class, () -> rootPackageHoldsNoClass().check(PLANTED));
        assertTrue(root.getMessage().contains("PlantedRootClass"), root.getMessage());
        AssertionError offFloor = assertThrows(AssertionError.class, () -> everyClassOnAFloor().check(PLANTED));
        assertTrue(offFloor.getMessage().contains("PlantedRootClass"), offFloor.getMessage());
    }

    /** The heading above the floor table of this module in ARCHITECTURE.md. */
    private static final String TABLE_HEADING = "### procfs-impl-linux: floors";

    /**
     * Reads the floor table: rows {@code | N | `pkg`, `pkg` | …}, the packages relative to the module's root
     * package.
     */
    static Map<Integer, List<String>> documentedFloors(String markdown) {
        int at = markdown.indexOf(TABLE_HEADING);
        assertTrue(at >= 0, "ARCHITECTURE.md has no heading " + TABLE_HEADING);
        Map<Integer, List<String>> floors = new LinkedHashMap<>();
        Pattern row = Pattern.compile("^\\|\\s*(\\d+)\\s*\\|([^|]*)\\|");
        Pattern pkg = Pattern.compile("`([a-z.]+)`");
        boolean inTable = false;
        for (String line : markdown.substring(at).lines().skip(1).toList()) {
            if (line.startsWith("|")) {
                inTable = true;
                Matcher m = row.matcher(line);
                if (m.find()) {
                    List<String> packages = new ArrayList<>();
                    Matcher p = pkg.matcher(m.group(2));
                    while (p.find()) {
                        packages.add(p.group(1));
                    }
                    floors.put(Integer.parseInt(m.group(1)), packages);
                }
            } else if (inTable || line.startsWith("#")) {
                break;
            }
        }
        return floors;
    }

    @Test
    void theFloorTableOfArchitectureMdIsTheCodes() throws IOException {
        Path doc = Path.of("").toAbsolutePath().getParent().resolve("ARCHITECTURE.md");
        assertTrue(Files.isRegularFile(doc), "no " + doc);
        Map<Integer, List<String>> documented = documentedFloors(Files.readString(doc));
        Map<Integer, List<String>> rules = new LinkedHashMap<>();
        for (int i = 0; i < FLOORS.size(); i++) {
            rules.put(i + 1, FLOORS.get(i));
        }
        assertEquals(rules, documented, "ARCHITECTURE.md's floors (left: the rules of this test)");
        Set<String> inCode = MAIN.stream().filter(c -> !c.getSimpleName().equals("package-info"))
                .map(JavaClass::getPackageName).filter(p -> p.startsWith(BASE + "."))
                .map(p -> p.substring(BASE.length() + 1)).collect(Collectors.toCollection(TreeSet::new));
        Set<String> inTable = documented.values().stream().flatMap(List::stream)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(inCode, inTable, "the packages that hold classes, and the packages of the table");
    }

    @Test
    void theTableReaderFailsOnATableThatDisagrees() {
        String wrong = TABLE_HEADING + "\n\n| floor | packages |\n|---|---|\n| 1 | `sys` |\n| 2 | `proc`, `parse` |\n";
        Map<Integer, List<String>> read = documentedFloors(wrong);
        assertEquals(Map.of(1, List.of("sys"), 2, List.of("proc", "parse")), read);
        assertFalse(read.equals(Map.of(1, FLOORS.get(0), 2, FLOORS.get(1))));
    }
}
