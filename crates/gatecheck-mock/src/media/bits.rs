//! A most-significant-bit-first bit writer, with the Exp-Golomb codes of H.264.

/// Writes bits MSB first into a byte vector.
#[derive(Debug, Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    cur: u8,
    used: u8,
}

impl BitWriter {
    /// Appends the low `n` bits of `value` (n ≤ 64), most significant first.
    pub(crate) fn bits(&mut self, value: u64, n: u8) {
        for i in (0..n).rev() {
            self.bit((value >> i) & 1 == 1);
        }
    }

    /// Appends one bit.
    pub(crate) fn bit(&mut self, on: bool) {
        self.cur = (self.cur << 1) | u8::from(on);
        self.used += 1;
        if self.used == 8 {
            self.bytes.push(self.cur);
            self.cur = 0;
            self.used = 0;
        }
    }

    /// Unsigned Exp-Golomb `ue(v)`.
    pub(crate) fn ue(&mut self, v: u32) {
        let x = u64::from(v) + 1;
        let len = 64 - x.leading_zeros() as u8;
        self.bits(0, len - 1);
        self.bits(x, len);
    }

    /// Signed Exp-Golomb `se(v)`.
    pub(crate) fn se(&mut self, v: i32) {
        let k = if v > 0 {
            (v as u32) * 2 - 1
        } else {
            v.unsigned_abs() * 2
        };
        self.ue(k);
    }

    /// `rbsp_trailing_bits`: a one bit, then zeros up to the byte boundary.
    pub(crate) fn trailing(&mut self) {
        self.bit(true);
        while self.used != 0 {
            self.bit(false);
        }
    }

    /// The bytes written (a partial last byte is padded with zeros).
    pub(crate) fn finish(mut self) -> Vec<u8> {
        while self.used != 0 {
            self.bit(false);
        }
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_golomb_codes() {
        let mut w = BitWriter::default();
        w.ue(0); // 1
        w.ue(3); // 00100
        w.se(0); // 1
        w.se(-1); // 011
        w.trailing(); // 1 + pad
        assert_eq!(w.finish(), vec![0b1001_0010, 0b1110_0000]);
    }
}
