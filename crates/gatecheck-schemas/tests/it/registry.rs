//! The embedded schemas: names, lookup, compilation.

use serde_json::json;

#[test]
fn smoke() {
    let task =
        json!({"id": "t1", "object": "video", "model": "m", "status": "running", "progress": 101});
    let err = gatecheck_schemas::validate("video-task", &task).unwrap_err();
    println!("{err}");
    let ok = json!({"id": "t1", "object": "video", "model": "m", "status": "queued", "progress": 0, "size": "10x10"});
    gatecheck_schemas::validate("video-task", &ok).unwrap();
}
