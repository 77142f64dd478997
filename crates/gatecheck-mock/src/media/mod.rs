//! Media generated in code: PNG, MP3, WAV, MP4 and subtitles.
