//! The recording proxy and the replay server (docs/recording.md): a recording of the mock
//! holds no form of the key, replays the same answers to the same requests (with another
//! key), in order with the last repeating, and answers 599 naming the closest recorded request
//! to one it does not hold. A recording of another format version is refused.

use gatecheck_conformance::internals::wav;
use gatecheck_conformance::recording::{
    Recorder, RecorderConfig, Recording, RecordingError, ReplayServer, Substitutions,
    UNMATCHED_STATUS,
};
use gatecheck_conformance::{Auth, Client, ClientConfig, Part, RequestSpec, Secret, Target};
use gatecheck_mock::MockServer;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

fn client(base: &str, key: &str) -> Client {
    let mut target = Target::new(base.parse().expect("url"));
    target.api_key = Some(Secret::new(key));
    Client::new(ClientConfig::new(target)).expect("client")
}

fn requests() -> Vec<RequestSpec> {
    let video = RequestSpec::post("/v1/videos")
        .auth(Auth::ApiKey)
        .json(json!({"model": "sora-2", "prompt": "a cat", "seconds": "4"}));
    vec![
        RequestSpec::get("/v1/models").auth(Auth::ApiKey),
        video.clone(),
        video,
        RequestSpec::post("/v1/audio/transcriptions")
            .auth(Auth::ApiKey)
            .multipart(vec![
                Part::text("model", "whisper-1"),
                Part::file("file", "a.wav", "audio/wav", wav(200)),
            ]),
        RequestSpec::get("/v1/models").auth(Auth::Raw(Secret::new("Basic x"))),
    ]
}

fn files(dir: &Path) -> Vec<Vec<u8>> {
    let mut out = vec![std::fs::read(dir.join("manifest.json")).expect("manifest")];
    for e in std::fs::read_dir(dir.join("exchanges"))
        .expect("exchanges")
        .flatten()
    {
        out.push(std::fs::read(e.path()).expect("file"));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_replays_the_same_answers_and_names_the_closest_on_a_miss() {
    let mock = MockServer::start().await;
    let key = mock.demo_key();
    let dir = std::env::temp_dir().join(format!("gatecheck-recording-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut config = RecorderConfig::new(mock.uri().parse().expect("url"), &dir);
    config.secrets = vec![("API_KEY".into(), key.clone())];
    let recorder = Recorder::start(config).await.expect("recorder");
    let live = client(&recorder.base_url(), &key);
    let mut recorded = Vec::new();
    for spec in requests() {
        recorded.push(live.send(&spec).await.expect("send"));
    }
    let manifest = recorder
        .finish(Duration::from_secs(5))
        .await
        .expect("finish");
    assert_eq!(manifest.exchanges, Some(5));
    let forms = Substitutions::forms("K", &key);
    for bytes in files(&dir) {
        for (needle, _) in &forms {
            assert!(!bytes.windows(needle.len()).any(|w| w == needle.as_bytes()));
        }
    }

    let recording = Recording::load(&dir).expect("load");
    let other = "sk-another-key-for-the-replay-0123456789";
    let secrets = [("API_KEY".to_owned(), other.to_owned())];
    let replay = ReplayServer::start(recording, "127.0.0.1:0".parse().expect("addr"), &secrets)
        .await
        .expect("replay");
    let client = client(&replay.base_url(), other);
    for (spec, want) in requests().iter().zip(&recorded) {
        let got = client.send(spec).await.expect("send");
        assert_eq!(got.status, want.status, "{}", spec.summary());
        assert_eq!(got.body, want.body, "{}", spec.summary());
    }
    // The third identical create gets the last recorded answer again.
    let again = client.send(&requests()[2]).await.expect("send");
    assert_eq!(again.body, recorded[2].body);
    assert!(replay.unmatched().is_empty(), "{:?}", replay.unmatched());

    let miss = RequestSpec::post("/v1/videos")
        .auth(Auth::ApiKey)
        .json(json!({"model": "sora-2", "prompt": "a dog", "seconds": "4"}));
    let ex = client.send(&miss).await.expect("send");
    assert_eq!(ex.status.as_u16(), UNMATCHED_STATUS);
    let unmatched = replay.unmatched();
    assert_eq!(unmatched.len(), 1);
    assert!(unmatched[0]
        .closest
        .as_deref()
        .is_some_and(|c| c.contains("POST /v1/videos")));
    assert!(
        unmatched[0].differs.iter().any(|d| d.starts_with("body")),
        "{unmatched:?}"
    );
    assert!(ex.text().contains("closest"), "{}", ex.text());

    let manifest_path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path).expect("manifest");
    std::fs::write(
        &manifest_path,
        text.replace("\"format_version\": 2", "\"format_version\": 1"),
    )
    .expect("write");
    match Recording::load(&dir) {
        Err(e @ RecordingError::Version { found: 1, .. }) => {
            assert!(e.to_string().contains("record it again"), "{e}");
        }
        other => panic!("a version-1 recording was not refused: {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
