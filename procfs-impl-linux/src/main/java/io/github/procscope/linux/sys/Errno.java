package io.github.procscope.linux.sys;

/**
 * The {@code errno} values of the generic Linux ABI that callers of the wall tell apart, and their names for
 * messages. The wall's calls return minus one of these; the call sets above it ({@link ProcessCalls},
 * {@link FsCalls}, {@link ProcFiles}) and the readers compare against them here, whichever back end made the
 * call.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    static final int ENOTDIR = 20;
    public static final int EINVAL = 22;
    public static final int EPIPE = 32;
    static final int ENOSYS = 38;

    private Errno() {
    }

    /**
     * @return the errno's symbolic name and text, e.g. {@code EACCES (Permission denied)}, or {@code errno N} for
     *         a number the platform does not name
     */
    public static String describe(int errno) {
        try {
            jnr.constants.platform.Errno e = jnr.constants.platform.Errno.valueOf(errno);
            if (e == null || !e.defined()) {
                return "errno " + errno;
            }
            return e.name() + " (" + e.description() + ")";
        } catch (RuntimeException ex) {
            return "errno " + errno;
        }
    }
}
