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
    let samples = (duration_ms * 48).max(1);
    let packets = samples.div_ceil(SAMPLES_PER_PACKET) as usize;
    let mut out = Vec::with_capacity(packets * 4 + packets / PACKETS_PER_PAGE * 80 + 200);
    let mut head = b"OpusHead".to_vec();
    head.push(1); // version
    head.push(1); // channels
    head.extend_from_slice(&PRE_SKIP.to_le_bytes());
    head.extend_from_slice(&input_rate.to_le_bytes());
    head.extend_from_slice(&0i16.to_le_bytes()); // output gain
    head.push(0); // mapping family
    page(&mut out, 0x02, 0, 0, &[&head]);
    let vendor = b"gatecheck";
    let mut tags = b"OpusTags".to_vec();
    tags.extend_from_slice(&(vendor.len() as u32).to_le_bytes());
    tags.extend_from_slice(vendor);
    tags.extend_from_slice(&0u32.to_le_bytes());
    page(&mut out, 0, 0, 1, &[&tags]);
    let mut seq = 2;
    let mut done = 0usize;
    while done < packets {
        let n = PACKETS_PER_PAGE.min(packets - done);
        done += n;
        let last = done == packets;
        let granule = if last {
            u64::from(PRE_SKIP) + samples
        } else {
            u64::from(PRE_SKIP) + done as u64 * SAMPLES_PER_PACKET
        };
        let list: Vec<&[u8]> = vec![&SILENCE[..]; n];
        page(&mut out, if last { 0x04 } else { 0 }, granule, seq, &list);
        seq += 1;
    }
    Bytes::from(out)
}
