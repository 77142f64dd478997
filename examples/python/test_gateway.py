"""The official OpenAI Python SDK against the mock started by the `gatecheck` fixture."""

import base64
import json
import urllib.request

import openai
import pytest


def client(gatecheck, api_key):
    return openai.OpenAI(base_url=gatecheck["base_url"] + "/v1", api_key=api_key, max_retries=0)


def test_a_png_is_generated_with_the_demo_key(gatecheck):
    result = client(gatecheck, gatecheck["demo_key"]).images.generate(
        model="gpt-image-1", prompt="a lighthouse at dusk", size="1024x1024"
    )
    png = base64.b64decode(result.data[0].b64_json)
    assert png[1:4] == b"PNG"


def test_a_disabled_key_is_refused_with_401(gatecheck, key):
    with pytest.raises(openai.AuthenticationError) as refused:
        client(gatecheck, key("demo-disabled")).images.generate(
            model="dall-e-3", prompt="a lighthouse at dusk", size="1024x1024"
        )
    assert refused.value.status_code == 401


def test_the_access_token_lists_the_demo_keys(gatecheck):
    request = urllib.request.Request(
        gatecheck["base_url"] + "/api/token/?p=1&size=10",
        headers={
            "Authorization": gatecheck["access_token"],
            "New-Api-User": str(gatecheck["user_id"]),
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        body = json.load(response)
    assert body["success"] is True
