package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;

/** What a stop needs to signal its members: a send through a pidfd it holds, or one checked by the key alone. */
interface Sender {
    /**
     * Checks that a pidfd names the process of the key and sends the signal through it.
     *
     * @param pidfd a pidfd opened on {@code key.pid()}
     */
    SendResult sendThrough(int pidfd, ProcessKey key, Signal signal);

    /**
     * Opens a pidfd, checks the identity through it and signals through it; where no pidfd can be had, checks the
     * start time and calls {@code kill(2)}.
     */
    SendResult sendChecked(ProcessKey key, Signal signal);
}
