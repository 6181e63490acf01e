package io.github.procscope.cli;

import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.util.ArrayList;
import java.util.IllegalFormatException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How every command's help is laid out: its usage, a one-paragraph description and its options first (so that
 * a 24-line terminal shows the options), then the longer explanations, then the examples; all of it wrapped to
 * the terminal's width, and only at spaces, so that a flag ({@code --forward=SIGNALS[,SIGNALS...]}), a list
 * ({@code TERM,INT,HUP}), a path ({@code ~/.local}) or an abbreviation ({@code e.g.}) is never split.
 */
final class HelpLayout {
    /**
     * The help section with the description's paragraphs after the first, shown after the options (and before the
     * list of subcommands).
     */
    static final String SECTION_KEY_DETAILS = "procscopeDetails";

    /** The widest the first column (names of options, parameters and subcommands) grows. */
    private static final int MAX_NAME_COLUMN = 30;

    private static final String NL = System.lineSeparator();

    private HelpLayout() {
    }

    /**
     * Lays out the help of a command and of every subcommand it has now.
     *
     * @param cl    the command line, with its subcommands added
     * @param width the terminal's width in columns
     * @param auto  whether picocli may ask the terminal for its width instead
     */
    static void apply(CommandLine cl, int width, boolean auto) {
        cl.setUsageHelpWidth(Math.max(55, width));
        cl.setUsageHelpAutoWidth(auto);
        cl.setHelpFactory(Layout::new);
        Map<String, CommandLine.IHelpSectionRenderer> sections = new LinkedHashMap<>(cl.getHelpSectionMap());
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_DESCRIPTION, h -> ((Layout) h).summary());
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_PARAMETER_LIST, h -> ((Layout) h).parameters());
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, h -> ((Layout) h).options());
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, h -> ((Layout) h).commands());
        sections.put(SECTION_KEY_DETAILS, h -> ((Layout) h).details());
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER, h -> ((Layout) h).examples());
        cl.setHelpSectionMap(sections);
        List<String> keys = new ArrayList<>(cl.getHelpSectionKeys());
        keys.remove(SECTION_KEY_DETAILS);
        keys.add(keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST_HEADING), SECTION_KEY_DETAILS);
        cl.setHelpSectionKeys(keys);
    }

    /**
     * Wraps text at spaces only: no line is wider than {@code width} unless one word alone is.
     *
     * @param text   the text, one paragraph
     * @param width  the most columns a line may take
     * @param first  what the first line starts with
     * @param indent what each further line starts with
     * @return the lines, each ending in a line separator
     */
    static String wrap(String text, int width, String first, String indent) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(first);
        boolean empty = true;
        for (String word : text.strip().split(" +")) {
            if (word.isEmpty()) {
                continue;
            }
            if (!empty && line.length() + 1 + word.length() > width) {
                out.append(line.toString().stripTrailing()).append(NL);
                line = new StringBuilder(indent);
                empty = true;
            }
            if (!empty) {
                line.append(' ');
            }
            line.append(word);
            empty = false;
        }
        return out.append(line.toString().stripTrailing()).append(NL).toString();
    }

    /** A picocli help whose text is wrapped by {@link #wrap}. */
    static final class Layout extends Help {
        Layout(CommandSpec spec, ColorScheme scheme) {
            super(spec, scheme);
        }

        private int width() {
            return commandSpec().usageMessage().width();
        }

        /** @return the description's paragraphs, with picocli's format specifiers ({@code %%}, {@code %n}) applied */
        private List<String> paragraphs() {
            List<String> out = new ArrayList<>();
            for (String d : commandSpec().usageMessage().description()) {
                out.addAll(List.of(formatted(d).split("\\R")));
            }
            return out;
        }

        private static String formatted(String s) {
            if (!s.contains("%")) {
                return s;
            }
            try {
                return String.format(Locale.ROOT, s);
            } catch (IllegalFormatException e) {
                return s;
            }
        }

        @Override
        protected String makeSynopsisFromParts(int headingLength, Ansi.Text options, Ansi.Text groups,
                                               Ansi.Text endOfOptions, Ansi.Text positionals, Ansi.Text command) {
            String name = commandSpec().qualifiedName();
            String rest = options.plainString() + groups.plainString() + endOfOptions.plainString()
                    + positionals.plainString() + command.plainString();
            // The heading ("Usage: ") precedes the first line; further lines align after the command's name.
            String text = wrap(name + " " + rest.strip(), width(), " ".repeat(headingLength),
                    " ".repeat(headingLength + name.length() + 1));
            return text.substring(headingLength);
        }

        /** @return the description's first paragraph */
        String summary() {
            List<String> p = paragraphs();
            return p.isEmpty() ? "" : wrap(p.get(0), width(), "", "");
        }

        /** @return the description's other paragraphs, after a blank line */
        String details() {
            List<String> p = paragraphs();
            if (p.size() < 2) {
                return "";
            }
            StringBuilder sb = new StringBuilder(NL);
            for (String s : p.subList(1, p.size())) {
                sb.append(wrap(s, width(), "", ""));
            }
            if (!commandSpec().subcommands().isEmpty()) {
                sb.append(NL); // before the list of subcommands
            }
            return sb.toString();
        }

        /** @return the footer's lines, an example's explanation wrapped under itself */
        String examples() {
            StringBuilder sb = new StringBuilder();
            for (String raw : commandSpec().usageMessage().footer()) {
                for (String line : formatted(raw).split("\\R", -1)) {
                    int lead = line.length() - line.stripLeading().length();
                    if (line.isBlank()) {
                        sb.append(NL);
                        continue;
                    }
                    // "  procscope ps --state Z      zombies only": the explanation wraps under itself.
                    int gap = line.indexOf("  ", lead);
                    int col = gap;
                    while (gap > 0 && col < line.length() && line.charAt(col) == ' ') {
                        col++;
                    }
                    if (gap > 0 && col < width() - 20 && col < line.length()) {
                        sb.append(wrap(line.substring(col), width(), line.substring(0, col), " ".repeat(col)));
                    } else {
                        sb.append(wrap(line.substring(lead), width(), " ".repeat(lead), " ".repeat(lead + 4)));
                    }
                }
            }
            return sb.toString();
        }

        private String label(ArgSpec a) {
            return parameterLabelRenderer().renderParameterLabel(a, ansi(), List.of()).plainString();
        }

        private List<String[]> optionRows() {
            List<String[]> rows = new ArrayList<>();
            for (OptionSpec o : commandSpec().options()) {
                if (o.hidden()) {
                    continue;
                }
                String shortName = null;
                List<String> longNames = new ArrayList<>();
                for (String n : o.names()) {
                    if (n.length() == 2 && shortName == null) {
                        shortName = n;
                    } else {
                        longNames.add(n);
                    }
                }
                String names = (shortName == null ? "    " : shortName + (longNames.isEmpty() ? "" : ", "))
                        + String.join(", ", longNames);
                rows.add(new String[] {"  " + names + label(o), String.join(" ", describe(o))});
            }
            return rows;
        }

        private List<String[]> parameterRows() {
            List<String[]> rows = new ArrayList<>();
            for (PositionalParamSpec p : commandSpec().positionalParameters()) {
                if (!p.hidden()) {
                    rows.add(new String[] {"      " + label(p), String.join(" ", describe(p))});
                }
            }
            return rows;
        }

        private static List<String> describe(ArgSpec a) {
            List<String> out = new ArrayList<>();
            for (String d : a.description()) {
                out.add(formatted(d));
            }
            return out;
        }

        private int nameColumn() {
            int w = 0;
            for (String[] r : optionRows()) {
                w = Math.max(w, r[0].length());
            }
            for (String[] r : parameterRows()) {
                w = Math.max(w, r[0].length());
            }
            return Math.min(w + 2, MAX_NAME_COLUMN);
        }

        String options() {
            return table(optionRows(), nameColumn());
        }

        String parameters() {
            return table(parameterRows(), nameColumn());
        }

        String commands() {
            Map<String, CommandLine> subs = commandSpec().subcommands();
            if (subs.isEmpty()) {
                return "";
            }
            List<String[]> rows = new ArrayList<>();
            java.util.Set<CommandLine> seen = new java.util.HashSet<>();
            for (Map.Entry<String, CommandLine> e : subs.entrySet()) {
                if (!seen.add(e.getValue()) || e.getValue().getCommandSpec().usageMessage().hidden()) {
                    continue;
                }
                String[] d = e.getValue().getCommandSpec().usageMessage().header();
                if (d.length == 0) {
                    d = e.getValue().getCommandSpec().usageMessage().description();
                }
                rows.add(new String[] {"  " + e.getKey(), d.length == 0 ? "" : formatted(d[0]).split("\\R")[0]});
            }
            int w = 0;
            for (String[] r : rows) {
                w = Math.max(w, r[0].length());
            }
            return table(rows, Math.min(w + 2, MAX_NAME_COLUMN));
        }

        /** @return two columns, the second wrapped under itself (two columns further in), at spaces only */
        private String table(List<String[]> rows, int column) {
            StringBuilder sb = new StringBuilder();
            String hang = " ".repeat(column + 2);
            for (String[] r : rows) {
                if (r[0].length() + 2 > column) {
                    sb.append(r[0]).append(NL);
                    if (!r[1].isBlank()) {
                        sb.append(wrap(r[1], width(), " ".repeat(column), hang));
                    }
                } else {
                    sb.append(wrap(r[1], width(), r[0] + " ".repeat(column - r[0].length()), hang));
                }
            }
            return sb.toString();
        }
    }
}
