"""pbbp2 Frame encoding against bytes worked out by hand from the protobuf wire format, and
against the independent encoder of the fake long connection."""

from __future__ import annotations

import pytest

from service.feishu.frames import Frame, FrameError, FrameMethod, ping_frame
from tests.fakes.feishu_longconn import decode_frame, encode_frame

# SeqID=1, LogID=2, service=3, method=0 (varints, tags 08 10 18 20), then headers (tag 2a, a
# 12-byte Header: key "type" under 0a, value "ping" under 12)
PING_BYTES = bytes.fromhex("08011002180320002a0c0a0474797065120470696e67")


def test_a_frame_encodes_to_the_protobuf_bytes() -> None:
    frame = Frame(
        seq_id=1, log_id=2, service=3, method=FrameMethod.CONTROL, headers=[("type", "ping")]
    )
    assert frame.encode() == PING_BYTES
    assert Frame.decode(PING_BYTES) == frame


def test_every_field_round_trips() -> None:
    frame = Frame(
        seq_id=2**64 - 1,
        log_id=2**40,
        service=-5,
        method=FrameMethod.DATA,
        headers=[("type", "event"), ("sum", "2"), ("seq", "1")],
        payload_encoding="gzip",
        payload_type="json",
        payload=b"\x00{}\xff",
        log_id_new="log-1",
    )
    assert Frame.decode(frame.encode()) == frame


def test_frames_agree_with_the_fake_long_connection() -> None:
    ours = Frame(
        seq_id=9,
        log_id=7,
        service=33,
        method=FrameMethod.DATA,
        headers=[("message_id", "m1"), ("biz_rt", "12")],
        payload=b'{"code":200}',
    )
    theirs = decode_frame(ours.encode())
    assert theirs == {
        "SeqID": 9,
        "LogID": 7,
        "service": 33,
        "method": 1,
        "headers": [("message_id", "m1"), ("biz_rt", "12")],
        "payload": b'{"code":200}',
    }
    assert Frame.decode(encode_frame(theirs)) == ours
    assert Frame.decode(ping_frame(33).encode()).header("type") == "ping"


def test_unknown_fields_are_skipped() -> None:
    # field 15 as a varint, field 14 as fixed32, then the ping's bytes
    extra = bytes.fromhex("7801") + bytes.fromhex("7501020304")
    assert Frame.decode(extra + PING_BYTES) == Frame.decode(PING_BYTES)


@pytest.mark.parametrize("data", [b"\x08", b"\x2a\x05ab", b"\x0f", b"\x08" + b"\xff" * 11])
def test_broken_bytes_are_a_frame_error(data: bytes) -> None:
    with pytest.raises(FrameError):
        Frame.decode(data)
