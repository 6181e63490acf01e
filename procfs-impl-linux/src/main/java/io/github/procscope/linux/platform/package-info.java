/**
 * The top floor: {@link io.github.procscope.linux.platform.LinuxProcscope}, which assembles the readers, events,
 * signals, jobs and doctor into one {@link io.github.procscope.api.Procscope}, and
 * {@link io.github.procscope.linux.platform.LinuxPlatform}, the service the API's front door loads.
 */
package io.github.procscope.linux.platform;
