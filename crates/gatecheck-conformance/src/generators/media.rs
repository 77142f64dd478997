//! Small, valid media files made in code, for uploads.

/// A mono 16-bit PCM WAV of `millis` milliseconds of a quiet tone at 8 kHz.
pub fn wav(millis: u32) -> Vec<u8> {
    let rate: u32 = 8000;
    let samples = (rate as u64 * u64::from(millis) / 1000) as u32;
    let data_len = samples * 2;
    let mut out = Vec::with_capacity(44 + data_len as usize);
    out.extend_from_slice(&gatecheck_schemas::rules::media::wav_header(data_len, rate));
    for i in 0..samples {
        // A 440 Hz triangle wave, low amplitude.
        let phase = (i * 440 % rate) as i32;
        let tri = (phase * 2 - rate as i32).abs() - rate as i32 / 2;
        let s = (tri * 2000 / rate as i32) as i16;
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// A `width` × `height` RGB PNG drawn from `seed` (the mock's own drawing:
/// [`gatecheck_codecs::png::generate`]), for image uploads.
pub fn png(seed: u64, width: u32, height: u32) -> Vec<u8> {
    gatecheck_codecs::png::generate(seed, width, height)
        .map(|b| b.to_vec())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn wav_parses() {
        let w = super::wav(250);
        let info = gatecheck_schemas::rules::media::parse_wav(&w).expect("valid wav");
        assert_eq!(info.sample_rate, 8000);
        assert_eq!(info.data_len, 4000);
    }

    #[test]
    fn png_parses() {
        let info = gatecheck_schemas::rules::media::parse_png(&super::png(3, 12, 9)).unwrap();
        assert_eq!((info.width, info.height), (12, 9));
    }
}
