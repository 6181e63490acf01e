package io.github.procscope.linux.sys;

/**
 * A decoded {@code struct statx}: the fields {@link NativeWall#statx} fills. Reused by one thread, not
 * thread-safe. The layout of {@code struct statx} is the same on every architecture.
 */
public final class FileStatus {
    /** The bytes of {@code struct statx} this class decodes. */
    static final int STATX_BYTES = 144;
    /** The size to allocate for {@code struct statx} (the kernel's, with its spare fields). */
    static final int STATX_ALLOC = 256;

    /** The file type bits of a mode, and the types they hold. */
    public static final int S_IFMT = 0170000;
    public static final int S_IFSOCK = 0140000;
    public static final int S_IFLNK = 0120000;
    public static final int S_IFREG = 0100000;
    public static final int S_IFBLK = 0060000;
    public static final int S_IFDIR = 0040000;
    public static final int S_IFCHR = 0020000;
    public static final int S_IFIFO = 0010000;

    int mask;
    int mode;
    long nlink;
    long uid;
    long gid;
    long ino;
    long size;
    long blocks;
    long rdevMajor;
    long rdevMinor;
    long devMajor;
    long devMinor;

    /** @return the file type bits ({@code mode & S_IFMT}) */
    int type() {
        return mode & S_IFMT;
    }

    /** @return whether this is a regular file */
    boolean isRegularFile() {
        return type() == S_IFREG;
    }

    /** @return {@code makedev(devMajor, devMinor)} as glibc encodes it in {@code st_dev} */
    long dev() {
        return makedev(devMajor, devMinor);
    }

    /** @return {@code makedev(rdevMajor, rdevMinor)} */
    long rdev() {
        return makedev(rdevMajor, rdevMinor);
    }

    /** @return what a file of type {@code type} ({@code S_IFMT} bits) is, for a message: "a FIFO", ... */
    static String kind(int type) {
        switch (type) {
            case S_IFIFO:
                return "a FIFO";
            case S_IFCHR:
                return "a character device";
            case S_IFDIR:
                return "a directory";
            case S_IFBLK:
                return "a block device";
            case S_IFSOCK:
                return "a socket";
            default:
                return "of type 0" + Integer.toOctalString(type);
        }
    }

    static long makedev(long major, long minor) {
        return ((major & 0xfffff000L) << 32) | ((major & 0xfffL) << 8)
                | ((minor & 0xffffff00L) << 12) | (minor & 0xffL);
    }

    /** Decodes {@code struct statx} from its bytes in native order. */
    void decode(java.nio.ByteBuffer b) {
        mask = b.getInt(0);
        nlink = Integer.toUnsignedLong(b.getInt(16));
        uid = Integer.toUnsignedLong(b.getInt(20));
        gid = Integer.toUnsignedLong(b.getInt(24));
        mode = Short.toUnsignedInt(b.getShort(28));
        ino = b.getLong(32);
        size = b.getLong(40);
        blocks = b.getLong(48);
        rdevMajor = Integer.toUnsignedLong(b.getInt(128));
        rdevMinor = Integer.toUnsignedLong(b.getInt(132));
        devMajor = Integer.toUnsignedLong(b.getInt(136));
        devMinor = Integer.toUnsignedLong(b.getInt(140));
    }

    @Override
    public String toString() {
        return "FileStatus[mask=" + Integer.toHexString(mask) + ", mode=" + Integer.toOctalString(mode) + ", nlink="
                + nlink + ", uid=" + uid + ", gid=" + gid + ", ino=" + ino + ", size=" + size + ", blocks=" + blocks
                + ", rdev=" + rdevMajor + ":" + rdevMinor + ", dev=" + devMajor + ":" + devMinor + "]";
    }
}
