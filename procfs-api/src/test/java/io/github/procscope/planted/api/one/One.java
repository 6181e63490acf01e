package io.github.procscope.planted.api.one;

import io.github.procscope.planted.api.FrontDoor;
import io.github.procscope.planted.api.two.Two;

/**
 * A planted violation: {@code one} and {@code two} import each other (a package cycle), and this class opens
 * the front door itself.
 */
public final class One {
    private Two partner;

    /** @return the partner, if set */
    public Two partner() {
        return partner;
    }

    /**
     * @param door the front door
     * @return what its reader reads
     */
    public String through(FrontDoor door) {
        return door.reader().read();
    }
}
