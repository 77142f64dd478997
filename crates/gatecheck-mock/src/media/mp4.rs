//! MP4 (ISO BMFF) with one H.264 video track: `ftyp`, `moov` (before the data, so players can
//! start at once), `mdat`. The pictures come from [`super::h264`]: an IDR picture every
//! [`GOP_SECONDS`], skipped P pictures between, at [`FPS`] frames per second.

use bytes::Bytes;

use super::h264::H264;

/// Frames per second.
pub const FPS: u32 = 24;
/// Seconds between IDR (sync) pictures.
pub const GOP_SECONDS: u32 = 2;
const TIMESCALE: u32 = FPS * 512;
const MOVIE_TIMESCALE: u32 = 1000;

/// Appends a box: size, type, then what `body` writes.
fn mp4_box(out: &mut Vec<u8>, kind: &[u8; 4], body: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(kind);
    body(out);
    let size = (out.len() - start) as u32;
    out[start..start + 4].copy_from_slice(&size.to_be_bytes());
}

/// Appends a full box: size, type, version 0 and `flags`, then the body.
fn full_box(out: &mut Vec<u8>, kind: &[u8; 4], flags: u32, body: impl FnOnce(&mut Vec<u8>)) {
    mp4_box(out, kind, |o| {
        o.extend_from_slice(&flags.to_be_bytes());
        body(o);
    });
}

fn u16be(o: &mut Vec<u8>, v: u16) {
    o.extend_from_slice(&v.to_be_bytes());
}

fn u32be(o: &mut Vec<u8>, v: u32) {
    o.extend_from_slice(&v.to_be_bytes());
}

/// The unity transformation matrix of `mvhd` and `tkhd`.
fn matrix(o: &mut Vec<u8>) {
    for v in [0x0001_0000u32, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] {
        u32be(o, v);
    }
}

/// The video track as the boxes describe it: its frames, sync pictures and durations.
struct Track {
    h: H264,
    width: u32,
    height: u32,
    /// Each frame as an MP4 sample: its NAL unit behind a 4-byte length.
    samples: Vec<Vec<u8>>,
    /// The 1-based numbers of the sync (IDR) samples.
    sync: Vec<u32>,
    /// In [`TIMESCALE`] units.
    media_duration: u32,
    /// In [`MOVIE_TIMESCALE`] units.
    movie_duration: u32,
}

impl Track {
    /// `seconds` (at least one) of pictures: an IDR every [`GOP_SECONDS`], skipped P
    /// pictures between.
    fn new(width: u32, height: u32, seconds: u32) -> Track {
        let h = H264::new(width, height);
        let frames = (seconds.max(1) * FPS) as usize;
        let gop = (GOP_SECONDS * FPS) as usize;
        let idr_payloads = [h.idr(0), h.idr(1)];
        let mut samples: Vec<Vec<u8>> = Vec::with_capacity(frames);
        let mut sync = Vec::new();
        for i in 0..frames {
            let nal = if i % gop == 0 {
                sync.push(i as u32 + 1);
                idr_payloads[(i / gop) % 2].clone()
            } else {
                h.p_skip((i % gop) as u32)
            };
            let mut s = Vec::with_capacity(nal.len() + 4);
            u32be(&mut s, nal.len() as u32);
            s.extend_from_slice(&nal);
            samples.push(s);
        }
        Track {
            h,
            width,
            height,
            samples,
            sync,
            media_duration: frames as u32 * 512,
            movie_duration: seconds.max(1) * MOVIE_TIMESCALE,
        }
    }

    fn frames(&self) -> u32 {
        self.samples.len() as u32
    }
}

/// An MP4 of `seconds` of flat grey video at `width` × `height` (even, non-zero).
pub fn mp4(width: u32, height: u32, seconds: u32) -> Bytes {
    let track = Track::new(width, height, seconds);
    let mut out = Vec::new();
    ftyp(&mut out);
    let mut stco_at = 0usize;
    mp4_box(&mut out, b"moov", |o| {
        mvhd(o, &track);
        mp4_box(o, b"trak", |o| {
            tkhd(o, &track);
            mp4_box(o, b"mdia", |o| stco_at = mdia(o, &track));
        });
    });
    mdat(&mut out, &track.samples, stco_at);
    Bytes::from(out)
}

/// The `ftyp` box.
fn ftyp(out: &mut Vec<u8>) {
    mp4_box(out, b"ftyp", |o| {
        o.extend_from_slice(b"isom");
        u32be(o, 512);
        for b in [b"isom", b"iso2", b"avc1", b"mp41"] {
            o.extend_from_slice(b);
        }
    });
}

/// The movie header.
fn mvhd(o: &mut Vec<u8>, track: &Track) {
    full_box(o, b"mvhd", 0, |o| {
        u32be(o, 0); // creation_time
        u32be(o, 0); // modification_time
        u32be(o, MOVIE_TIMESCALE);
        u32be(o, track.movie_duration);
        u32be(o, 0x0001_0000); // rate 1.0
        u16be(o, 0x0100); // volume 1.0
        o.extend_from_slice(&[0; 10]);
        matrix(o);
        o.extend_from_slice(&[0; 24]); // pre_defined
        u32be(o, 2); // next_track_ID
    });
}

/// The track header.
fn tkhd(o: &mut Vec<u8>, track: &Track) {
    full_box(o, b"tkhd", 3, |o| {
        u32be(o, 0);
        u32be(o, 0);
        u32be(o, 1); // track_ID
        u32be(o, 0);
        u32be(o, track.movie_duration);
        o.extend_from_slice(&[0; 8]);
        u16be(o, 0); // layer
        u16be(o, 0); // alternate_group
        u16be(o, 0); // volume
        u16be(o, 0);
        matrix(o);
        u32be(o, track.width << 16);
        u32be(o, track.height << 16);
    });
}

/// The body of `mdia`: media header, handler and media information. Returns where in `o`
/// the chunk offset stands, for [`mdat`] to patch.
fn mdia(o: &mut Vec<u8>, track: &Track) -> usize {
    full_box(o, b"mdhd", 0, |o| {
        u32be(o, 0);
        u32be(o, 0);
        u32be(o, TIMESCALE);
        u32be(o, track.media_duration);
        u16be(o, 0x55C4); // language "und"
        u16be(o, 0);
    });
    full_box(o, b"hdlr", 0, |o| {
        u32be(o, 0);
        o.extend_from_slice(b"vide");
        o.extend_from_slice(&[0; 12]);
        o.extend_from_slice(b"VideoHandler\0");
    });
    let mut stco_at = 0;
    mp4_box(o, b"minf", |o| {
        full_box(o, b"vmhd", 1, |o| o.extend_from_slice(&[0; 8]));
        mp4_box(o, b"dinf", |o| {
            full_box(o, b"dref", 0, |o| {
                u32be(o, 1);
                full_box(o, b"url ", 1, |_| {});
            });
        });
        mp4_box(o, b"stbl", |o| stco_at = stbl(o, track));
    });
    stco_at
}

/// The body of `stbl`, the sample table: descriptions, timing, sync samples, chunks, sizes
/// and the chunk offset, which is patched once the data's place is known (returned: where
/// it stands in `o`).
fn stbl(o: &mut Vec<u8>, track: &Track) -> usize {
    let frames = track.frames();
    stsd(o, &track.h, track.width, track.height);
    full_box(o, b"stts", 0, |o| {
        u32be(o, 1);
        u32be(o, frames);
        u32be(o, 512);
    });
    full_box(o, b"stss", 0, |o| {
        u32be(o, track.sync.len() as u32);
        for s in &track.sync {
            u32be(o, *s);
        }
    });
    full_box(o, b"stsc", 0, |o| {
        u32be(o, 1);
        u32be(o, 1); // first_chunk
        u32be(o, frames); // samples_per_chunk
        u32be(o, 1); // sample_description_index
    });
    full_box(o, b"stsz", 0, |o| {
        u32be(o, 0);
        u32be(o, frames);
        for s in &track.samples {
            u32be(o, s.len() as u32);
        }
    });
    let mut stco_at = 0;
    full_box(o, b"stco", 0, |o| {
        u32be(o, 1);
        stco_at = o.len();
        u32be(o, 0); // patched by mdat
    });
    stco_at
}

/// Appends the `mdat` box of `samples` and points the chunk offset at `stco_at` to it.
fn mdat(out: &mut Vec<u8>, samples: &[Vec<u8>], stco_at: usize) {
    let data_len: usize = samples.iter().map(Vec::len).sum();
    let data_start = out.len() + 8;
    out[stco_at..stco_at + 4].copy_from_slice(&(data_start as u32).to_be_bytes());
    out.reserve(data_len + 8);
    u32be(out, (data_len + 8) as u32);
    out.extend_from_slice(b"mdat");
    for s in samples {
        out.extend_from_slice(s);
    }
}

/// The `stsd` box with one `avc1` sample entry and its `avcC` configuration.
fn stsd(o: &mut Vec<u8>, h: &H264, width: u32, height: u32) {
    full_box(o, b"stsd", 0, |o| {
        u32be(o, 1);
        mp4_box(o, b"avc1", |o| {
            o.extend_from_slice(&[0; 6]);
            u16be(o, 1); // data_reference_index
            o.extend_from_slice(&[0; 16]);
            u16be(o, width as u16);
            u16be(o, height as u16);
            u32be(o, 0x0048_0000); // 72 dpi
            u32be(o, 0x0048_0000);
            u32be(o, 0);
            u16be(o, 1); // frame_count
            let mut name = [0u8; 32];
            let label = b"gatecheck";
            name[0] = label.len() as u8;
            name[1..=label.len()].copy_from_slice(label);
            o.extend_from_slice(&name);
            u16be(o, 0x0018); // depth
            u16be(o, 0xFFFF); // pre_defined -1
            mp4_box(o, b"avcC", |o| {
                o.extend_from_slice(&[1, h.profile, h.compat, h.level, 0xFF, 0xE1]);
                u16be(o, h.sps.len() as u16);
                o.extend_from_slice(&h.sps);
                o.push(1);
                u16be(o, h.pps.len() as u16);
                o.extend_from_slice(&h.pps);
            });
        });
    });
}
