package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.Dispositions;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.SignalsUnavailableException;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;

import java.nio.file.Path;

/**
 * The {@link Signals} of a root that is not this system's {@code /proc}: reads go to that root, and every
 * send or stop is refused, since a pid there names a process of another system (or of none) and its
 * identity cannot be checked before the signal.
 */
final class ReadOnlySignals implements Signals {
    private final LinuxSignals reader;
    private final Path root;

    ReadOnlySignals(LinuxSignals reader, Path root) {
        this.reader = reader;
        this.root = root;
    }

    private SignalsUnavailableException refused() {
        return new SignalsUnavailableException("signals go to this system's processes, and only the live /proc"
                + " can check a process's identity before it is signalled; " + root
                + " is not this system's /proc, so its signal sender reads only");
    }

    @Override
    public Signals allowingSelf() {
        return this;
    }

    @Override
    public Signals allowingInit() {
        return this;
    }

    @Override
    public ProcessKey key(long pid) {
        return reader.table().key(pid);
    }

    @Override
    public ProcessKey key(ProcessHandle handle) {
        throw refused();
    }

    @Override
    public SendResult send(ProcessKey target, Signal signal) {
        throw refused();
    }

    @Override
    public SendResult sendToGroup(long pgid, Signal signal) {
        throw refused();
    }

    @Override
    public boolean isAlive(ProcessKey key) {
        return reader.isAlive(key);
    }

    @Override
    public Dispositions dispositions(ProcessKey key) {
        return reader.dispositions(key);
    }

    @Override
    public Dispositions dispositions(long pid) {
        return reader.dispositions(pid);
    }

    @Override
    public StopReport stop(ProcessKey target, StopOptions options) {
        throw refused();
    }

    @Override
    public StopReport stop(Process child, StopOptions options) {
        throw refused();
    }

    @Override
    public StopReport stopGroup(long pgid, StopOptions options) {
        throw refused();
    }

    @Override
    public StopReport stopTree(ProcessKey root, StopOptions options) {
        throw refused();
    }

    @Override
    public StopReport stopTree(Process child, StopOptions options) {
        throw refused();
    }

    @Override
    public String toString() {
        return "Signals[reading only, under " + root + "]";
    }
}
