package io.github.procscope.examples;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The BOM manages every artifact the reactor publishes: each module of the parent POM except the parent
 * itself, the benchmarks, the examples and the BOM, at the BOM's own version, and nothing that is not a module.
 */
class BomListsEveryPublishedArtifactTest {
    /** Modules (by directory) that are built but not published as a dependency a consumer imports. */
    private static final Set<String> NOT_PUBLISHED = Set.of("benchmarks", "examples", "procscope-bom");

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    @Test
    void everyPublishedModuleIsInTheBomAndNothingElse() throws Exception {
        Document parent = parse(ROOT.resolve("pom.xml"));
        Set<String> published = new TreeSet<>();
        for (String module : texts(child(parent.getDocumentElement(), "modules"), "module")) {
            if (!NOT_PUBLISHED.contains(module)) {
                published.add(text(parse(ROOT.resolve(module).resolve("pom.xml")).getDocumentElement(), "artifactId"));
            }
        }
        assertTrue(published.contains("procfs-api") && published.contains("procfs-impl-linux"),
                "the parent's modules were not read: " + published);

        Document bom = parse(ROOT.resolve("procscope-bom").resolve("pom.xml"));
        Element dependencies = child(child(bom.getDocumentElement(), "dependencyManagement"), "dependencies");
        Set<String> managed = new TreeSet<>();
        List<String> wrong = new ArrayList<>();
        for (Element d : children(dependencies, "dependency")) {
            String id = text(d, "artifactId");
            managed.add(id);
            if (!"io.github.procscope".equals(text(d, "groupId")) || !"${project.version}".equals(text(d, "version"))) {
                wrong.add(id + " (groupId " + text(d, "groupId") + ", version " + text(d, "version") + ")");
            }
        }
        Set<String> missing = new TreeSet<>(published);
        missing.removeAll(managed);
        Set<String> stale = new TreeSet<>(managed);
        stale.removeAll(published);
        assertEquals(Set.of(), missing, "published modules missing from procscope-bom's dependencyManagement");
        assertEquals(Set.of(), stale, "procscope-bom manages artifacts the reactor does not publish");
        assertEquals(List.of(), wrong, "every entry is io.github.procscope at ${project.version}");
        assertEquals(text(parent.getDocumentElement(), "version"), text(bom.getDocumentElement(), "version"),
                "the BOM's version is the reactor's");
    }

    private static Document parse(Path pom) throws Exception {
        assertTrue(Files.isRegularFile(pom), pom + " is missing");
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(pom.toFile());
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static Element child(Element parent, String name) {
        List<Element> c = children(parent, name);
        assertEquals(1, c.size(), "one <" + name + "> under <" + parent.getTagName() + ">");
        return c.get(0);
    }

    private static String text(Element parent, String name) {
        return child(parent, name).getTextContent().trim();
    }

    private static List<String> texts(Element parent, String name) {
        return children(parent, name).stream().map(e -> e.getTextContent().trim()).toList();
    }
}
