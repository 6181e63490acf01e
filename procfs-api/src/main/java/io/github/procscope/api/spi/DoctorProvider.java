package io.github.procscope.api.spi;

import io.github.procscope.api.diagnose.Doctor;

/** Registered in {@code META-INF/services}; {@link Doctor#system()} uses the first one found. */
public interface DoctorProvider {
    /** @return the doctor of the live system */
    Doctor systemDoctor();
}
