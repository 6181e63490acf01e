package io.github.procscope.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table: columns right- or left-aligned to their widest cell, the last column cut so that
 * each line fits the terminal width.
 */
final class Table {
    private final List<String> headers = new ArrayList<>();
    private final List<Boolean> rightAligned = new ArrayList<>();
    private final List<String[]> rows = new ArrayList<>();
    private final List<Integer> minWidths = new ArrayList<>();
    private boolean cutLast = true;

    /** Adds a right-aligned column (numbers) at least {@code minWidth} wide, so an empty table aligns as a full one. */
    Table right(String header, int minWidth) {
        right(header);
        minWidths.set(minWidths.size() - 1, minWidth);
        return this;
    }

    /** Adds a right-aligned column (numbers). */
    Table right(String header) {
        headers.add(header);
        rightAligned.add(true);
        minWidths.add(0);
        return this;
    }

    /** Adds a left-aligned column (text). */
    Table left(String header) {
        headers.add(header);
        rightAligned.add(false);
        minWidths.add(0);
        return this;
    }

    /**
     * Never cuts the last column (a path a user copies): a line it makes wider than the terminal is printed whole,
     * and the terminal wraps it.
     */
    Table wholeLast() {
        cutLast = false;
        return this;
    }

    /** Adds a row; cells in column order. */
    Table row(Object... cells) {
        rows.add(cells(cells));
        return this;
    }

    int size() {
        return rows.size();
    }

    /** Prints the table, each line at most {@code width} characters. */
    void print(PrintStream out, int width) {
        int n = headers.size();
        int[] w = new int[n];
        for (int i = 0; i < n; i++) {
            w[i] = Math.max(minWidths.get(i), headers.get(i).length());
        }
        for (String[] r : rows) {
            for (int i = 0; i < n; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        printRow(out, headers.toArray(new String[0]), w, width);
        for (String[] r : rows) {
            printRow(out, r, w, width);
        }
    }

    /**
     * Prints the table with {@code count} rows made on demand before the rows added with {@link #row}: each is
     * made twice (once for the columns' widths, once to print it) and none is held, so a table of a hundred
     * thousand rows costs no more memory than one. The lines are those {@link #print(PrintStream, int)} prints.
     *
     * @param out   where to print
     * @param width the most characters a line may have
     * @param count how many rows {@code row} makes
     * @param row   the cells of row {@code i}, in column order
     */
    void print(PrintStream out, int width, int count, java.util.function.IntFunction<Object[]> row) {
        int n = headers.size();
        int[] w = new int[n];
        for (int i = 0; i < n; i++) {
            w[i] = Math.max(minWidths.get(i), headers.get(i).length());
        }
        for (int r = 0; r < count; r++) {
            String[] cells = cells(row.apply(r));
            for (int i = 0; i < n; i++) {
                w[i] = Math.max(w[i], cells[i].length());
            }
        }
        for (String[] r : rows) {
            for (int i = 0; i < n; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        printRow(out, headers.toArray(new String[0]), w, width);
        for (int r = 0; r < count; r++) {
            printRow(out, cells(row.apply(r)), w, width);
        }
        for (String[] r : rows) {
            printRow(out, r, w, width);
        }
    }

    private String[] cells(Object[] cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.size() + " columns");
        }
        String[] r = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            r[i] = printable(String.valueOf(cells[i]));
        }
        return r;
    }

    private void printRow(PrintStream out, String[] cells, int[] w, int width) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            boolean last = i == cells.length - 1;
            String c = cells[i];
            if (rightAligned.get(i)) {
                sb.append(" ".repeat(w[i] - c.length())).append(c);
            } else if (last) {
                sb.append(c);
            } else {
                sb.append(c).append(" ".repeat(w[i] - c.length()));
            }
        }
        String line = sb.toString();
        if (line.length() > width && cutLast) {
            String last = cells[cells.length - 1];
            int before = line.length() - last.length();
            if (!rightAligned.get(cells.length - 1) && width - before > ELLIPSIS.length() + 4) {
                // A path or command cut to fit keeps its end (the file name), and the cut is marked.
                int keep = width - before - ELLIPSIS.length();
                line = line.substring(0, before) + ELLIPSIS + last.substring(last.length() - keep);
            } else {
                line = line.substring(0, width);
            }
        }
        out.println(line.stripTrailing());
    }

    /** Control characters (a comm may hold a newline) are shown escaped, never printed raw. */
    static String printable(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                if (sb == null) {
                    sb = new StringBuilder(s.substring(0, i));
                }
                sb.append(c == '\n' ? "\\n" : c == '\t' ? "\\t" : String.format("\\x%02x", (int) c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }

    /**
     * Prints text wrapped at word boundaries so that no line is wider than {@code width}; lines after the first
     * start with {@code indent}.
     */
    static void wrap(PrintStream out, String text, String indent, int width) {
        String rest = printable(text);
        String lead = "";
        while (lead.length() + rest.length() > width) {
            int room = width - lead.length();
            if (room < 8) {
                break; // a terminal too narrow to wrap into
            }
            int cut = rest.lastIndexOf(' ', room);
            if (cut <= 0) {
                out.println(lead + rest.substring(0, room)); // one word longer than the line: cut it
                rest = rest.substring(room);
            } else {
                out.println(lead + rest.substring(0, cut));
                rest = rest.substring(cut + 1);
            }
            lead = indent;
        }
        out.println(lead + rest);
    }

    /** The mark of a cut cell. */
    static final String ELLIPSIS = "...";

    /** @return the terminal width from {@code COLUMNS}, else 80 */
    static int terminalWidth() {
        try {
            int c = Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "80"));
            return c >= 40 ? c : 80;
        } catch (NumberFormatException e) {
            return 80;
        }
    }
}
