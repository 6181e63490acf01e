/** The start-up baseline of benchmarks/run.sh: the smallest Java program, one line of output. */
public final class Hello {
    private Hello() {
    }

    public static void main(String[] args) {
        System.out.println("hello");
    }
}
