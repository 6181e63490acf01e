package io.github.procscope.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;
import io.github.procscope.api.gpu.XidErrors;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Watches the XID errors of an inventory's GPUs. NVML reports an XID only as an event, when it happens, so one
 * daemon thread per inventory waits on an event set ({@code nvmlEventSetWait_v2}, {@value #WAIT_MS} ms at a time,
 * each wait under the inventory's read lock) where every GPU that accepts {@code nvmlEventTypeXidCriticalError}
 * is registered, and keeps per GPU the number seen and the last one. The inventory frees the set when it closes
 * (under its write lock, so never under a wait); the thread then ends at its next wait.
 */
final class XidWatcher {
    /** How long one wait lasts, and so at most how long closing the inventory waits for the thread. */
    static final int WAIT_MS = 250;
    private static final int RC_SUCCESS = NvmlNative.NVML_SUCCESS;
    private static final int RC_TIMEOUT = NvmlReturn.TIMEOUT.code();

    private final NvmlGpus owner;
    private final NvmlFunctions functions;
    private final Optional<Pointer> set;
    /** Each watched GPU's handle and its errors so far (guarded by this). */
    private final Map<Pointer, XidErrors> watched = new HashMap<>();

    private XidWatcher(NvmlGpus owner, Optional<Pointer> set) {
        this.owner = owner;
        this.functions = owner.library().functions();
        this.set = set;
    }

    /**
     * Creates the event set, registers the GPUs and starts the thread; called under the inventory's read lock.
     *
     * @param gpus the physical GPUs (handle and the label for messages)
     * @return the watcher; one that watches nothing when the driver or no GPU reports XID events
     * @throws NvmlException if creating the set or registering a GPU fails other than with "not supported",
     *                       "no permission" or "GPU is lost"
     */
    static XidWatcher start(NvmlGpus owner, List<Map.Entry<Pointer, String>> gpus) {
        NvmlFunctions fns = owner.library().functions();
        if (!fns.events()) {
            return new XidWatcher(owner, Optional.empty());
        }
        PointerByReference created = new PointerByReference();
        int rc = fns.eventSetCreate.call().call(created);
        if (NvmlGpus.isUnavailable(rc)) {
            return new XidWatcher(owner, Optional.empty());
        }
        if (rc != RC_SUCCESS) {
            throw new NvmlException(fns.eventSetCreate.name(), rc, owner.library().errorString(rc), Optional.empty());
        }
        Pointer set = created.getValue();
        XidWatcher w = new XidWatcher(owner, Optional.of(set));
        try {
            for (Map.Entry<Pointer, String> gpu : gpus) {
                int r = fns.registerEvents.call().call(gpu.getKey(), NvmlNative.NVML_EVENT_TYPE_XID_CRITICAL_ERROR, set);
                if (r == RC_SUCCESS) {
                    w.watched.put(gpu.getKey(), XidErrors.none());
                } else if (!NvmlGpus.isUnavailable(r) && r != NvmlReturn.GPU_IS_LOST.code()) {
                    throw new NvmlException(fns.registerEvents.name(), r, owner.library().errorString(r),
                            Optional.of(gpu.getValue()));
                }
            }
        } catch (RuntimeException e) {
            fns.eventSetFree.call().call(set);
            throw e;
        }
        if (w.watched.isEmpty()) {
            fns.eventSetFree.call().call(set);
            return new XidWatcher(owner, Optional.empty());
        }
        Thread t = new Thread(w::run, "procscope-nvml-xid");
        t.setDaemon(true);
        t.start();
        return w;
    }

    /** @return the errors of a GPU so far; empty if it is not watched */
    synchronized Optional<XidErrors> errorsOf(Pointer gpu) {
        return Optional.ofNullable(watched.get(gpu));
    }

    /** Counts one XID of a GPU; one not watched is ignored. */
    synchronized void record(Pointer gpu, long xid, Instant at) {
        XidErrors before = watched.get(gpu);
        if (before != null) {
            watched.put(gpu, new XidErrors(before.count() + 1, OptionalLong.of(xid), Optional.of(at)));
        }
    }

    @SuppressWarnings("try") // the guard keeps NVML initialised during the wait; the body needs no reference to it
    private void run() {
        Pointer s = set.orElseThrow();
        Memory data = new Memory(NvmlNative.NVML_EVENT_DATA_SIZE);
        while (true) {
            int rc;
            try (NvmlGpus.Guard g = owner.enter()) {
                data.clear();
                rc = functions.eventSetWait.call().call(s, data, WAIT_MS);
            } catch (IllegalStateException closed) {
                return;
            }
            if (rc == RC_SUCCESS) {
                long type = data.getLong(NvmlNative.NVML_EVENT_DATA_EVENT_TYPE_OFFSET);
                if ((type & NvmlNative.NVML_EVENT_TYPE_XID_CRITICAL_ERROR) != 0) {
                    record(data.getPointer(0), data.getLong(NvmlNative.NVML_EVENT_DATA_EVENT_DATA_OFFSET),
                            Instant.now());
                }
            } else if (rc != RC_TIMEOUT && owner.awaitClosing(Duration.ofMillis(WAIT_MS))) {
                return; // a failed wait (a GPU lost, the driver gone) is retried, not spun on
            }
        }
    }

    /** Frees the event set; called by the inventory under its write lock when it closes. */
    void free() {
        set.ifPresent(s -> functions.eventSetFree.call().call(s));
    }
}
