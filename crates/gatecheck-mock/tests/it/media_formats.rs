//! Every medium the mock makes, parsed back with the shared validators
//! (`gatecheck_schemas::rules::media`). Set `GATECHECK_MEDIA_DUMP=<dir>` to also write the
//! files there (for checking them with ffprobe by hand).

use gatecheck_mock::internals::media::{self, SpeechFormat};
use gatecheck_schemas::rules::media::{
    parse_adts, parse_flac, parse_mp3, parse_mp4, parse_ogg_opus, parse_png, parse_srt, parse_vtt,
    parse_wav,
};

fn dump(name: &str, bytes: &[u8]) {
    if let Ok(dir) = std::env::var("GATECHECK_MEDIA_DUMP") {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(std::path::Path::new(&dir).join(name), bytes);
    }
}

#[test]
fn png_has_exactly_the_requested_size_and_is_deterministic() {
    for (w, h) in [(1024, 1024), (1792, 1024), (512, 768), (1, 1), (7, 3)] {
        let png = media::png(42, w, h).expect("png");
        dump(&format!("image_{w}x{h}.png"), &png);
        let info = parse_png(&png).expect("valid png");
        assert_eq!((info.width, info.height), (w, h));
        assert_eq!(png, media::png(42, w, h).expect("png again"));
    }
    assert_ne!(
        media::png(1, 64, 64).unwrap(),
        media::png(2, 64, 64).unwrap()
    );
    assert!(media::png(1, 0, 10).is_err());
    assert!(media::png(1, 100_000, 100_000).is_err());
}

#[test]
fn mp3_is_valid_mpeg_frames_and_grows_with_duration() {
    let short = media::mp3(1000);
    let long = media::mp3(5000);
    dump("speech.mp3", &long);
    let a = parse_mp3(&short).expect("valid mp3");
    let b = parse_mp3(&long).expect("valid mp3");
    assert_eq!(&short[..4], &media::MP3_FRAME_HEADER);
    assert_eq!(a.layer, 3);
    assert_eq!(a.sample_rate, 48000);
    assert!((a.duration_secs - 1.0).abs() < 0.03, "{}", a.duration_secs);
    assert!((b.duration_secs - 5.0).abs() < 0.03, "{}", b.duration_secs);
}

#[test]
fn wav_header_is_consistent() {
    let samples = media::tone(2500, media::SPEECH_RATE, 7);
    let wav = media::wav(&samples, media::SPEECH_RATE);
    dump("speech.wav", &wav);
    let info = parse_wav(&wav).expect("valid wav");
    assert_eq!(
        (info.format_tag, info.channels, info.bits_per_sample),
        (1, 1, 16)
    );
    assert_eq!(info.sample_rate, 24000);
    assert!(info.riff_size_matches && info.data_size_matches && info.rates_consistent);
    assert!((info.duration_secs - 2.5).abs() < 1e-9);
    assert!(samples.iter().any(|&s| s != 0), "the tone is not silence");
    assert_eq!(media::pcm(&samples).len(), samples.len() * 2);
}

#[test]
fn flac_frames_have_valid_crcs_and_hold_every_sample() {
    for ms in [10, 1000, 3333] {
        let samples = media::tone(ms, media::SPEECH_RATE, 3);
        let flac = media::flac(&samples, media::SPEECH_RATE);
        dump(&format!("speech_{ms}.flac"), &flac);
        let info = parse_flac(&flac).expect("valid flac");
        assert_eq!(info.total_samples, samples.len() as u64);
        assert_eq!(info.frame_samples, samples.len() as u64);
        assert_eq!(
            (info.sample_rate, info.channels, info.bits_per_sample),
            (24000, 1, 16)
        );
    }
}

#[test]
fn ogg_opus_pages_are_valid() {
    let ogg = media::opus(3210, media::SPEECH_RATE);
    dump("speech.opus", &ogg);
    let info = parse_ogg_opus(&ogg).expect("valid ogg opus");
    assert_eq!(info.channels, 1);
    assert!(
        (info.duration_secs - 3.21).abs() < 1e-6,
        "{}",
        info.duration_secs
    );
    assert!(info.audio_packets >= 160);
}

#[test]
fn adts_frames_are_valid() {
    let aac = media::aac(2000, media::SPEECH_RATE);
    dump("speech.aac", &aac);
    let info = parse_adts(&aac).expect("valid adts");
    assert_eq!(
        (info.sample_rate, info.channels, info.object_type),
        (24000, 1, 2)
    );
    assert!(
        (info.duration_secs - 2.0).abs() < 0.05,
        "{}",
        info.duration_secs
    );
}

#[test]
fn speech_grows_with_input_in_every_format() {
    for f in SpeechFormat::ALL {
        let short = media::speech(f, "Hi.", "alloy", 1.0);
        let long = media::speech(f, &"Hello there. ".repeat(20), "alloy", 1.0);
        assert!(long.len() > short.len(), "{f:?}");
    }
}

#[test]
fn mp4_boxes_are_valid_with_the_requested_duration_and_size() {
    for (w, h, secs) in [
        (1280, 720, 4),
        (720, 1280, 8),
        (1792, 1024, 12),
        (100, 50, 1),
    ] {
        let mp4 = media::mp4(w, h, secs);
        dump(&format!("video_{w}x{h}_{secs}s.mp4"), &mp4);
        let info = parse_mp4(&mp4).expect("valid mp4");
        assert_eq!(info.major_brand, "isom");
        assert_eq!(info.top_level, vec!["ftyp", "moov", "mdat"]);
        assert!((info.duration_secs - f64::from(secs)).abs() < 1e-9);
        let t = &info.tracks[0];
        assert_eq!((t.handler.as_str(), t.codec.as_str()), ("vide", "avc1"));
        assert_eq!((t.width, t.height), (w, h));
        assert!((t.duration_secs() - f64::from(secs)).abs() < 1e-9);
        assert_eq!(t.stts_duration, t.duration);
        assert_eq!(t.samples, (secs * media::MP4_FPS) as usize);
        assert!(t.sync_samples.is_some_and(|n| n >= 1));
    }
}

#[test]
fn transcripts_are_deterministic_and_subtitles_tile_the_duration() {
    let wav = media::wav(&media::tone(12_345, 24000, 1), 24000);
    let t = media::transcribe(&wav, "wav");
    assert_eq!(t.duration_ms, 12_345);
    assert_eq!(t, media::transcribe(&wav, "wav"));
    assert_ne!(t.text, media::transcribe(&wav[..wav.len() - 2], "wav").text);
    let srt = parse_srt(&media::srt(&t.segments)).expect("valid srt");
    let vtt = parse_vtt(&media::vtt(&t.segments)).expect("valid vtt");
    for cues in [&srt, &vtt] {
        assert_eq!(cues[0].start_ms, 0);
        assert_eq!(cues.last().map(|c| c.end_ms), Some(12_345));
        assert!(cues.windows(2).all(|w| w[0].end_ms == w[1].start_ms));
        let total: u64 = cues.iter().map(|c| c.end_ms - c.start_ms).sum();
        assert_eq!(total, 12_345);
    }
    // Other formats: exact from MP3 frames, estimated from the size otherwise.
    let mp3 = media::mp3(3000);
    assert_eq!(media::audio_duration_ms(&mp3, "mp3"), 3000);
    assert_eq!(media::audio_duration_ms(&[0u8; 16_000], "ogg"), 1333);
    assert_eq!(
        media::audio_duration_ms(&media::opus(2500, 24_000), "ogg"),
        2500
    );
    assert_eq!(
        media::audio_duration_ms(&media::mp4(64, 64, 3), "mp4"),
        3000
    );
    assert_eq!(
        media::audio_duration_ms(&media::flac(&[0; 48_000], 24_000), "flac"),
        2000
    );
}

/// An upload still in the frames it came in is transcribed as its joined bytes are: every
/// format, cut in frames of several sizes, WAV with metadata past the header read in place,
/// a cut file, and a file that is no audio at all.
#[test]
fn transcripts_of_framed_uploads_are_those_of_the_joined_bytes() {
    use bytes::Bytes;
    use gatecheck_codecs::multipart::Rope;
    let wav = media::wav(&media::tone(3_210, 24000, 1), 24000);
    // A WAV whose `data` chunk starts past the first 64 KiB (a 70 KiB `LIST` chunk first).
    let mut long_meta = wav[..12].to_vec();
    long_meta.extend_from_slice(b"LIST");
    long_meta.extend_from_slice(&(70u32 << 10).to_le_bytes());
    long_meta.resize(long_meta.len() + (70 << 10), b'x');
    long_meta.extend_from_slice(&wav[12..]);
    let files: [(&str, Vec<u8>); 9] = [
        ("wav", wav.to_vec()),
        ("wav", long_meta),
        ("wav", wav[..wav.len() / 2].to_vec()),
        ("wav", vec![7u8; 50_000]),
        ("mp3", media::mp3(2000).to_vec()),
        ("ogg", media::opus(1500, 24_000).to_vec()),
        ("mp4", media::mp4(64, 64, 2).to_vec()),
        ("flac", media::flac(&[0; 24_000], 24_000).to_vec()),
        ("webm", vec![1u8; 20_000]),
    ];
    for (ext, file) in &files {
        let whole = media::transcribe(file, ext);
        for size in [1 << 10, 8 << 10, 100_000, file.len().max(1)] {
            let frames = file.chunks(size).map(Bytes::copy_from_slice).collect();
            let framed = Rope::from_chunks(frames);
            assert_eq!(
                media::transcribe_of(&framed, ext),
                whole,
                "{ext} of {} bytes in frames of {size}",
                file.len()
            );
        }
    }
}
