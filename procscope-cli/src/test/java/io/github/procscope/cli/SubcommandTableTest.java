package io.github.procscope.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The subcommand table that lets picocli build only the model of the subcommand a command line names: each
 * name is its class's own, and a command line gets the one it names or, naming none, all of them.
 */
class SubcommandTableTest {

    @Test
    void everyNameIsItsClassesCommandName() {
        ProcscopeCli.SUBCOMMANDS.forEach((name, type) -> {
            CommandLine.Command c = type.getAnnotation(CommandLine.Command.class);
            assertEquals(name, c.name(), type.getName());
        });
        assertEquals(23, ProcscopeCli.SUBCOMMANDS.size());
    }

    @Test
    void aCommandLineGetsTheSubcommandItNames() {
        assertEquals(List.of(PsCommand.class), List.copyOf(ProcscopeCli.subcommandsFor("ps", "--sort=-rss")));
        assertEquals(List.of(PsCommand.class), List.copyOf(ProcscopeCli.subcommandsFor("--json", "ps")));
        assertEquals(List.of(TreeCommand.class),
                List.copyOf(ProcscopeCli.subcommandsFor("--procfs-root", "ps", "tree", "1")));
        assertEquals(List.of(TreeCommand.class),
                List.copyOf(ProcscopeCli.subcommandsFor("--procfs-root=/x", "tree", "ps")));
        assertEquals(List.of(StopCommand.class), List.copyOf(ProcscopeCli.subcommandsFor("stop", "--", "ps")));
    }

    @Test
    void theHelpAndATypoGetThemAllTheOverviewNone() {
        int all = ProcscopeCli.SUBCOMMANDS.size();
        assertEquals(all, ProcscopeCli.subcommandsFor("--help").size());
        assertEquals(all, ProcscopeCli.subcommandsFor("-h").size());
        assertEquals(all, ProcscopeCli.subcommandsFor("--json", "-Vh").size());
        assertEquals(all, ProcscopeCli.subcommandsFor("help", "ps").size());
        assertEquals(all, ProcscopeCli.subcommandsFor("pss").size());
        assertEquals(all, ProcscopeCli.subcommandsFor("--", "ps").size());
        assertEquals(0, ProcscopeCli.subcommandsFor().size());
        assertEquals(0, ProcscopeCli.subcommandsFor("--json").size());
        assertEquals(0, ProcscopeCli.subcommandsFor("--version").size());
        assertEquals(0, ProcscopeCli.subcommandsFor("--procfs-root", "--help-dir", "--json").size());
        assertEquals(0, ProcscopeCli.subcommandsFor("--procfs-root").size());
    }

    private static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = ProcscopeCli.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new String[] {Integer.toString(rc), out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void helpStillListsEverySubcommandAndATypoIsStillNamed() {
        String[] help = run("--help");
        assertEquals("0", help[0]);
        for (String name : ProcscopeCli.SUBCOMMANDS.keySet()) {
            assertTrue(help[1].contains("\n  " + name + " ") || help[1].contains("\n  " + name + "\n"),
                    name + " in:\n" + help[1]);
        }
        String[] typo = run("pss");
        assertEquals("2", typo[0]);
        assertTrue(typo[2].startsWith("procscope: unknown subcommand 'pss'"), typo[2]);
        String[] version = run("-V");
        assertEquals("0", version[0]);
        assertTrue(version[1].startsWith("procscope "), version[1]);
        String[] overview = run("--procfs-root", "/nonexistent");
        assertEquals("2", overview[0]);
        String[] helpPs = run("help", "ps");
        assertEquals("0", helpPs[0]);
        assertTrue(helpPs[1].contains("Usage: procscope ps"), helpPs[1]);
    }
}
