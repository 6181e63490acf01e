package io.github.procscope.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command's help, as a person reads it at 80 and 120 columns: options within the first 24 lines, no line
 * wider than the terminal, no word, flag, list or path split across lines; a typo is answered with the name it
 * most resembles, and only the typo is called unknown.
 */
class HelpLayoutTest {

    private static CliRun run(int width, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int status = ProcscopeCli.run(new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), false, width, args);
        return new CliRun(status, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    /** @return every command's name, the root's as {@code ""} */
    private static List<String> commands() {
        List<String> all = new ArrayList<>(List.of(""));
        ProcscopeCli.SUBCOMMANDS.keySet().stream().filter(n -> !n.equals("help")).forEach(all::add);
        return all;
    }

    private static CliRun help(String command, int width) {
        CliRun r = command.isEmpty() ? run(width, "--help") : run(width, command, "--help");
        assertEquals(0, r.status(), r.err());
        return r;
    }

    @Test
    void theFirst24LinesAt80ColumnsReachTheOptions() {
        for (String c : commands()) {
            List<String> lines = help(c, 80).out().lines().toList();
            assertTrue(lines.get(0).startsWith("Usage: procscope"), c + ":\n" + lines);
            boolean option = lines.stream().limit(24).anyMatch(l -> l.matches("  (-\\w, |    )--[a-z].*"));
            assertTrue(option, "'" + c + " --help' shows no option in its first 24 lines:\n"
                    + String.join("\n", lines.subList(0, Math.min(24, lines.size()))));
        }
    }

    @Test
    void noLineIsWiderThanTheTerminal() {
        for (int width : new int[] {80, 120}) {
            for (String c : commands()) {
                for (String line : help(c, width).out().lines().toList()) {
                    assertTrue(line.length() <= width, "'" + c + " --help' at " + width + " columns: " + line.length()
                            + " characters:\n" + line);
                }
            }
        }
    }

    @Test
    void aWiderTerminalGetsLongerLines() {
        int at80 = help("run", 80).out().lines().mapToInt(String::length).max().orElseThrow();
        int at120 = help("run", 120).out().lines().mapToInt(String::length).max().orElseThrow();
        assertTrue(at80 <= 80 && at120 > 100, at80 + " then " + at120);
    }

    /** Each word of a command's own text (description, options, examples) appears whole in its help. */
    @Test
    void noWordFlagListOrPathIsSplit() {
        for (int width : new int[] {80, 120}) {
            for (String c : commands()) {
                Set<String> shown = new HashSet<>(List.of(help(c, width).out().split("\\s+")));
                for (String word : words(spec(c))) {
                    assertTrue(shown.contains(word), "'" + c + " --help' at " + width + " columns splits '" + word
                            + "'");
                }
            }
        }
        // The cases a line-break iterator splits: an abbreviation, a path, a list, a repeated option's synopsis.
        String run = help("run", 80).out() + help("run", 120).out();
        for (String whole : List.of("e.g.", "~/.local/state/procscope/jobs).", "TERM,INT,HUP,USR1;",
                "[--forward=SIGNALS[,SIGNALS...]]...")) {
            assertTrue(List.of(run.split("\\s+")).contains(whole), whole + " in:\n" + run);
        }
    }

    private static CommandSpec spec(String command) {
        CommandLine cl = new CommandLine(new ProcscopeCli());
        if (command.isEmpty()) {
            return cl.getCommandSpec();
        }
        cl.addSubcommand(ProcscopeCli.SUBCOMMANDS.get(command));
        return cl.getSubcommands().get(command).getCommandSpec();
    }

    private static List<String> words(CommandSpec spec) {
        List<String> text = new ArrayList<>(List.of(spec.usageMessage().description()));
        text.addAll(List.of(spec.usageMessage().footer()));
        for (OptionSpec o : spec.options()) {
            text.addAll(List.of(o.description()));
        }
        List<String> words = new ArrayList<>();
        for (String t : text) {
            String s = t;
            try {
                s = String.format(Locale.ROOT, t); // %% and %n, as picocli reads them
            } catch (java.util.IllegalFormatException e) {
                // not a format ("use% that"): shown as written
            }
            for (String w : s.split("\\s+")) {
                if (!w.isEmpty()) {
                    words.add(w);
                }
            }
        }
        return words;
    }

    @Test
    void aMistypedSubcommandIsAnsweredWithTheClosestOne() {
        CliRun r = run(80, "pss");
        assertEquals(2, r.status());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("procscope: unknown subcommand 'pss'; did you mean 'ps'?"), r.err());
        assertTrue(run(80, "doctr").err().contains("did you mean 'doctor'?"));
        // Nothing close: no guess.
        assertFalse(run(80, "zzzzzzzz").err().contains("did you mean"));
    }

    @Test
    void aMistypedOptionIsNamedAloneNotTheValueAfterIt() {
        for (List<String> args : List.of(List.of("ps", "--sortt", "rss"), List.of("ps", "--sortt=rss"))) {
            CliRun r = run(80, args.toArray(String[]::new));
            assertEquals(2, r.status(), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("procscope ps: unknown option '--sortt'; did you mean '--sort'?"), r.err());
            assertFalse(r.err().contains("rss"), "the value is not called an unknown option: " + r.err());
        }
        CliRun extra = run(80, "free", "x");
        assertEquals(2, extra.status());
        assertTrue(extra.err().startsWith("procscope free: unexpected argument 'x'"), extra.err());
    }

    @Test
    void anUnknownUserOrPidIsOneLineAndExitStatus1() {
        CliRun user = run(80, "ps", "--user", "no-such-user-xq");
        assertEquals(1, user.status(), user.out() + user.err());
        assertEquals("", user.out());
        assertEquals(List.of("procscope ps: no user 'no-such-user-xq' on this system"), user.err().lines().toList());
        // root is a known user, with processes or not; so is any uid.
        assertEquals(0, run(80, "ps", "--user", "root").status());
        assertEquals(0, run(80, "ps", "--user", "4242424").status());
        CliRun pid = run(80, "ps", "--pid", "4194304");
        assertEquals(1, pid.status());
        assertEquals("", pid.out());
        assertEquals(1, pid.err().lines().count(), pid.err());
    }
}
