package io.github.procscope.api.process;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ProcessStateTest {
    @Test
    void everyKernelLetterHasAStateWithItsWords() {
        String letters = "RSDTtZXIPWK";
        for (char c : letters.toCharArray()) {
            ProcessState s = ProcessState.fromLetter(c).orElseThrow();
            assertEquals(c, s.letter());
        }
        assertEquals(Optional.of(ProcessState.DEAD), ProcessState.fromLetter('x'), "x: dead on kernels before 4.14");
        assertEquals(Optional.empty(), ProcessState.fromLetter('Q'));
        assertEquals("disk sleep", ProcessState.DISK_SLEEP.description());
        assertEquals("zombie", ProcessState.ZOMBIE.description());
        assertEquals(11, ProcessState.values().length);
    }
}
