//! Ogg Opus: an `OpusHead` page, an `OpusTags` page, then pages of 20 ms Opus packets of
//! silence (the 3-byte CELT silence frame `F8 FF FE`), with granule positions and CRCs.

use bytes::Bytes;
use gatecheck_schemas::rules::media::crc32_ogg;

const PRE_SKIP: u16 = 312;
const SILENCE: [u8; 3] = [0xF8, 0xFF, 0xFE];
const SAMPLES_PER_PACKET: u64 = 960; // 20 ms at 48 kHz
const PACKETS_PER_PAGE: usize = 50;
const SERIAL: u32 = 0x6761_7465; // "gate"

fn page(out: &mut Vec<u8>, flags: u8, granule: u64, seq: u32, packets: &[&[u8]]) {
    let start = out.len();
    out.extend_from_slice(b"OggS");
    out.push(0);
    out.push(flags);
    out.extend_from_slice(&granule.to_le_bytes());
    out.extend_from_slice(&SERIAL.to_le_bytes());
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // CRC, patched below
    let mut lacing = Vec::new();
    for p in packets {
        lacing.extend(std::iter::repeat_n(255u8, p.len() / 255));
        lacing.push((p.len() % 255) as u8);
    }
    out.push(lacing.len() as u8);
    out.extend_from_slice(&lacing);
    for p in packets {
        out.extend_from_slice(p);
    }
    let crc = crc32_ogg(&out[start..]);
    out[start + 22..start + 26].copy_from_slice(&crc.to_le_bytes());
}

/// An Ogg Opus stream of `duration_ms` of silence (mono; the final granule trims it exactly).
pub fn opus(duration_ms: u64, input_rate: u32) -> Bytes {
    let layout = Layout::new(duration_ms);
    let mut out =
        Vec::with_capacity(layout.packets * 4 + layout.packets / PACKETS_PER_PAGE * 80 + 200);
    head_pages(input_rate, &mut out);
    for k in 0..layout.pages() {
        layout.data_page(k, &mut out);
    }
    Bytes::from(out)
}

/// The audio pages of an Ogg Opus stream of `duration_ms`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    samples: u64,
    packets: usize,
}

impl Layout {
    pub(crate) fn new(duration_ms: u64) -> Self {
        let samples = (duration_ms * 48).max(1);
        Self {
            samples,
            packets: samples.div_ceil(SAMPLES_PER_PACKET) as usize,
        }
    }

    /// The bytes of every audio page: each is a 27-byte header, one lacing byte a packet
    /// and the packets.
    pub(crate) fn data_len(&self) -> usize {
        self.pages() * 27 + self.packets * (1 + SILENCE.len())
    }

    /// How many audio pages.
    pub(crate) fn pages(&self) -> usize {
        self.packets.div_ceil(PACKETS_PER_PAGE)
    }

    /// Audio page `k` (its sequence number is `k + 2`, after the two header pages).
    pub(crate) fn data_page(&self, k: usize, out: &mut Vec<u8>) {
        let done = ((k + 1) * PACKETS_PER_PAGE).min(self.packets);
        let n = done - k * PACKETS_PER_PAGE;
        let last = done == self.packets;
        let granule = if last {
            u64::from(PRE_SKIP) + self.samples
        } else {
            u64::from(PRE_SKIP) + done as u64 * SAMPLES_PER_PACKET
        };
        let list: Vec<&[u8]> = vec![&SILENCE[..]; n];
        page(
            out,
            if last { 0x04 } else { 0 },
            granule,
            k as u32 + 2,
            &list,
        );
    }
}

/// The `OpusHead` and `OpusTags` pages.
pub(crate) fn head_pages(input_rate: u32, out: &mut Vec<u8>) {
    let mut head = b"OpusHead".to_vec();
    head.push(1); // version
    head.push(1); // channels
    head.extend_from_slice(&PRE_SKIP.to_le_bytes());
    head.extend_from_slice(&input_rate.to_le_bytes());
    head.extend_from_slice(&0i16.to_le_bytes()); // output gain
    head.push(0); // mapping family
    page(out, 0x02, 0, 0, &[&head]);
    let vendor = b"gatecheck";
    let mut tags = b"OpusTags".to_vec();
    tags.extend_from_slice(&(vendor.len() as u32).to_le_bytes());
    tags.extend_from_slice(vendor);
    tags.extend_from_slice(&0u32.to_le_bytes());
    page(out, 0, 0, 1, &[&tags]);
}
