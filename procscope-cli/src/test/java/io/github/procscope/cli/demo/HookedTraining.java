package io.github.procscope.cli.demo;

/** The demo with a shutdown hook that prints "hook ran", to show the hooks run after a checkpoint. */
public final class HookedTraining {
    private HookedTraining() {
    }

    public static void main(String[] args) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("hook ran");
            System.out.flush();
        }));
        TrainingLoopDemo.main(args);
    }
}
