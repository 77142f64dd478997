//! The checksums the media formats carry: CRC-32 (PNG), the Ogg CRC-32, and FLAC's CRC-8 and
//! CRC-16. Table driven, tables built at compile time.

/// The lookup table of a CRC of `width` bits (at most 32) with polynomial `poly`: bit by bit
/// over each byte value, least significant bit first when `reflected` (then `poly` is given
/// reflected too), most significant first otherwise. One builder for every table below.
const fn table(poly: u32, width: u32, reflected: bool) -> [u32; 256] {
    let top = 1u32 << (width - 1);
    let mask = if width == 32 {
        u32::MAX
    } else {
        (1 << width) - 1
    };
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = if reflected {
            n as u32
        } else {
            (n as u32) << (width - 8)
        };
        let mut k = 0;
        while k < 8 {
            c = if reflected {
                if c & 1 != 0 {
                    poly ^ (c >> 1)
                } else {
                    c >> 1
                }
            } else if c & top != 0 {
                ((c << 1) ^ poly) & mask
            } else {
                (c << 1) & mask
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
}

/// A table of [`table`] whose entries fit 16 bits, as `u16`s.
const fn narrow(wide: [u32; 256]) -> [u16; 256] {
    let mut out = [0u16; 256];
    let mut n = 0;
    while n < 256 {
        out[n] = wide[n] as u16;
        n += 1;
    }
    out
}

static IEEE: [u32; 256] = table(0xEDB8_8320, 32, true);
static OGG: [u32; 256] = table(0x04C1_1DB7, 32, false);
static CRC16: [u16; 256] = narrow(table(0x8005, 16, false));

/// The CRC-32 of PNG chunks (and zlib, gzip): reflected polynomial 0xEDB88320.
pub fn crc32_ieee(data: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c = IEEE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    c ^ 0xFFFF_FFFF
}

/// The CRC-32 of Ogg pages: polynomial 0x04C11DB7, not reflected, zero initial value.
pub fn crc32_ogg(data: &[u8]) -> u32 {
    let mut c = 0u32;
    for &b in data {
        c = (c << 8) ^ OGG[(((c >> 24) as u8) ^ b) as usize];
    }
    c
}

/// The CRC-8 of FLAC frame headers: polynomial 0x07, zero initial value.
pub fn crc8_flac(data: &[u8]) -> u8 {
    let mut c = 0u8;
    for &b in data {
        c ^= b;
        for _ in 0..8 {
            c = if c & 0x80 != 0 {
                (c << 1) ^ 0x07
            } else {
                c << 1
            };
        }
    }
    c
}

/// The CRC-16 of FLAC frames: polynomial 0x8005, zero initial value.
pub fn crc16_flac(data: &[u8]) -> u16 {
    crc16_flac_update(0, data)
}

/// Continues a FLAC CRC-16 `crc` over `data`: `crc16_flac_update(crc16_flac(a), b)` equals
/// `crc16_flac(a ++ b)`, so a parser can keep a running checksum byte by byte.
pub fn crc16_flac_update(crc: u16, data: &[u8]) -> u16 {
    let mut c = crc;
    for &b in data {
        c = (c << 8) ^ CRC16[(((c >> 8) as u8) ^ b) as usize];
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_check_values() {
        // The standard "123456789" check values of each CRC.
        assert_eq!(crc32_ieee(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc8_flac(b"123456789"), 0xF4);
        assert_eq!(crc16_flac(b"123456789"), 0xFEE8);
        assert_eq!(crc16_flac_update(crc16_flac(b"1234"), b"56789"), 0xFEE8);
        assert_eq!(crc32_ogg(b"123456789"), 0x89A1_897F);
    }

    /// Every entry of every table, against the bit-by-bit definition: one byte reaches each.
    #[test]
    fn tables_match_the_bitwise_definitions() {
        fn msb_first(poly: u32, width: u32, byte: u8) -> u32 {
            let top = 1u64 << (width - 1);
            let mut c = u64::from(byte) << (width - 8);
            for _ in 0..8 {
                c = if c & top != 0 {
                    (c << 1) ^ u64::from(poly)
                } else {
                    c << 1
                };
            }
            (c & ((1u64 << width) - 1)) as u32
        }
        for byte in 0..=255u8 {
            assert_eq!(crc32_ogg(&[byte]), msb_first(0x04C1_1DB7, 32, byte));
            assert_eq!(u32::from(crc16_flac(&[byte])), msb_first(0x8005, 16, byte));
            let mut c = u32::from(byte) ^ 0xFFFF_FFFF;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            assert_eq!(crc32_ieee(&[byte]), c ^ 0xFFFF_FFFF);
        }
    }
}
