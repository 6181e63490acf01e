package io.github.procscope.api;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServiceLookupTest {
    @Test
    void withoutAnImplementationTheErrorNamesTheMissingArtifact() {
        ImplementationNotFoundException e = assertThrows(ImplementationNotFoundException.class, ProcessTable::system);
        assertTrue(e.getMessage().contains("io.github.procscope:procfs-impl-linux"), e.getMessage());
        assertTrue(e.getMessage().contains(ProcessTable.class.getName() + "Provider")
                || e.getMessage().contains("ProcessTableProvider"), e.getMessage());
    }
}
