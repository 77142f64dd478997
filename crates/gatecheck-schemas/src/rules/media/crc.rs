//! The checksums the media formats carry: CRC-32 (PNG), the Ogg CRC-32, and FLAC's CRC-8 and
//! CRC-16. Table driven, tables built at compile time.

const fn ieee_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
}

const fn ogg_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = (n as u32) << 24;
        let mut k = 0;
        while k < 8 {
            c = if c & 0x8000_0000 != 0 {
                (c << 1) ^ 0x04C1_1DB7
            } else {
                c << 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
}

const fn crc16_table() -> [u16; 256] {
    let mut table = [0u16; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = (n as u16) << 8;
        let mut k = 0;
        while k < 8 {
            c = if c & 0x8000 != 0 {
                (c << 1) ^ 0x8005
            } else {
                c << 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
}

static IEEE: [u32; 256] = ieee_table();
static OGG: [u32; 256] = ogg_table();
static CRC16: [u16; 256] = crc16_table();

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
}
