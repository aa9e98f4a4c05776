package unobot;

import java.util.Arrays;

/**
 * SHAKE-256 (FIPS 202), the extendable-output function the deal check needs
 * (proto/README.md, section 11): the JDK's MessageDigest has SHA3-256 but no
 * SHAKE. A Keccak-f[1600] sponge with a rate of 136 bytes and the domain
 * padding 0x1F.
 */
public final class Shake256 {
  private static final int RATE = 136; // bytes: 1600 bits less a capacity of 512

  private static final long[] ROUND_CONSTANTS = {
    0x0000000000000001L, 0x0000000000008082L, 0x800000000000808aL, 0x8000000080008000L,
    0x000000000000808bL, 0x0000000080000001L, 0x8000000080008081L, 0x8000000000008009L,
    0x000000000000008aL, 0x0000000000000088L, 0x0000000080008009L, 0x000000008000000aL,
    0x000000008000808bL, 0x800000000000008bL, 0x8000000000008089L, 0x8000000000008003L,
    0x8000000000008002L, 0x8000000000000080L, 0x000000000000800aL, 0x800000008000000aL,
    0x8000000080008081L, 0x8000000000008080L, 0x0000000080000001L, 0x8000000080008008L,
  };

  // The rotation of lane x + 5y, and where rho-pi moves it.
  private static final int[] ROTATIONS = {
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
  };

  private Shake256() {}

  /** The first {@code length} bytes of SHAKE-256 of {@code data}. */
  public static byte[] digest(byte[] data, int length) {
    long[] state = new long[25];
    int offset = 0;
    for (; data.length - offset >= RATE; offset += RATE) {
      absorb(state, data, offset, RATE);
      permute(state);
    }
    byte[] last = Arrays.copyOfRange(data, offset, offset + RATE); // zero-filled past the data
    last[data.length - offset] ^= 0x1F; // SHAKE's domain bits and the first pad bit
    last[RATE - 1] ^= (byte) 0x80; // the last pad bit
    absorb(state, last, 0, RATE);
    permute(state);
    byte[] out = new byte[length];
    for (int at = 0; at < length; ) {
      for (int i = 0; i < RATE && at < length; i++, at++) {
        out[at] = (byte) (state[i / 8] >>> (8 * (i % 8)));
      }
      if (at < length) {
        permute(state);
      }
    }
    return out;
  }

  /** XOR {@code count} bytes (a multiple of 8) of {@code data} into the state, little-endian lanes. */
  private static void absorb(long[] state, byte[] data, int offset, int count) {
    for (int lane = 0; lane < count / 8; lane++) {
      long value = 0;
      for (int b = 7; b >= 0; b--) {
        value = (value << 8) | (data[offset + 8 * lane + b] & 0xFFL);
      }
      state[lane] ^= value;
    }
  }

  /** Keccak-f[1600]: 24 rounds of theta, rho and pi, chi, iota. */
  static void permute(long[] a) {
    long[] c = new long[5];
    long[] b = new long[25];
    for (long roundConstant : ROUND_CONSTANTS) {
      for (int x = 0; x < 5; x++) {
        c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
      }
      for (int x = 0; x < 5; x++) {
        long d = c[(x + 4) % 5] ^ Long.rotateLeft(c[(x + 1) % 5], 1);
        for (int y = 0; y < 25; y += 5) {
          a[x + y] ^= d;
        }
      }
      for (int x = 0; x < 5; x++) {
        for (int y = 0; y < 5; y++) {
          // pi: lane (x, y) goes to (y, 2x + 3y)
          b[y + 5 * ((2 * x + 3 * y) % 5)] = Long.rotateLeft(a[x + 5 * y], ROTATIONS[x + 5 * y]);
        }
      }
      for (int y = 0; y < 25; y += 5) {
        for (int x = 0; x < 5; x++) {
          a[x + y] = b[x + y] ^ (~b[(x + 1) % 5 + y] & b[(x + 2) % 5 + y]);
        }
      }
      a[0] ^= roundConstant;
    }
  }
}
