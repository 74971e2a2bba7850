"""The frames of Feishu's long connection: protobuf `pbbp2.Frame` messages, one per websocket
binary message, encoded and decoded by hand (nine fields do not need the protobuf runtime).

    message Header { required string key = 1; required string value = 2; }
    message Frame {
      required uint64 SeqID = 1;  required uint64 LogID = 2;
      required int32 service = 3; required int32 method = 4;   // 0 control, 1 data
      repeated Header headers = 5;
      optional string payload_encoding = 6; optional string payload_type = 7;
      optional bytes payload = 8; optional string LogIDNew = 9;
    }

(the schema of lark-oapi's `ws/pb/pbbp2_pb2.py`; proto2, so the required fields are always
written, zeros included)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

VARINT = 0
FIXED64 = 1
LENGTH_DELIMITED = 2
FIXED32 = 5
UINT64_MASK = (1 << 64) - 1
INT32_SIGN = 1 << 31
MAX_VARINT_BYTES = 10


class FrameError(ValueError):
    """Bytes that are not a pbbp2 Frame."""


class FrameMethod(IntEnum):
    CONTROL = 0
    DATA = 1


class MessageType(StrEnum):
    """The `type` header: control frames ping / pong, data frames event / card."""

    PING = "ping"
    PONG = "pong"
    EVENT = "event"
    CARD = "card"


class HeaderKey(StrEnum):
    TYPE = "type"
    MESSAGE_ID = "message_id"
    TRACE_ID = "trace_id"
    SUM = "sum"  # parts of a split data frame
    SEQ = "seq"  # this part's index, from 0
    BIZ_RT = "biz_rt"  # milliseconds the handler took, in the answer


@dataclass
class Frame:
    seq_id: int = 0
    log_id: int = 0
    service: int = 0
    method: int = FrameMethod.CONTROL
    headers: list[tuple[str, str]] = field(default_factory=list)
    payload_encoding: str | None = None
    payload_type: str | None = None
    payload: bytes | None = None
    log_id_new: str | None = None

    def header(self, key: str) -> str | None:
        return next((v for k, v in self.headers if k == key), None)

    def encode(self) -> bytes:
        out = bytearray()
        _varint_field(out, FieldNo.SEQ_ID, self.seq_id & UINT64_MASK)
        _varint_field(out, FieldNo.LOG_ID, self.log_id & UINT64_MASK)
        # a negative int32 is written as its 64-bit two's complement: ten bytes
        _varint_field(out, FieldNo.SERVICE, self.service & UINT64_MASK)
        _varint_field(out, FieldNo.METHOD, self.method & UINT64_MASK)
        for key, value in self.headers:
            header = bytearray()
            _bytes_field(header, 1, key.encode())
            _bytes_field(header, 2, value.encode())
            _bytes_field(out, FieldNo.HEADERS, bytes(header))
        for number, text in (
            (FieldNo.PAYLOAD_ENCODING, self.payload_encoding),
            (FieldNo.PAYLOAD_TYPE, self.payload_type),
        ):
            if text is not None:
                _bytes_field(out, number, text.encode())
        if self.payload is not None:
            _bytes_field(out, FieldNo.PAYLOAD, self.payload)
        if self.log_id_new is not None:
            _bytes_field(out, FieldNo.LOG_ID_NEW, self.log_id_new.encode())
        return bytes(out)

    @classmethod
    def decode(cls, data: bytes) -> Frame:
        frame = cls()
        for number, value in _fields(data):
            _assign(frame, number, value)
        return frame


def ping_frame(service: int) -> Frame:
    return Frame(
        service=service, method=FrameMethod.CONTROL, headers=[(HeaderKey.TYPE, MessageType.PING)]
    )


class FieldNo(IntEnum):
    SEQ_ID = 1
    LOG_ID = 2
    SERVICE = 3
    METHOD = 4
    HEADERS = 5
    PAYLOAD_ENCODING = 6
    PAYLOAD_TYPE = 7
    PAYLOAD = 8
    LOG_ID_NEW = 9


_INT_FIELDS = {FieldNo.SEQ_ID: "seq_id", FieldNo.LOG_ID: "log_id"}
_INT32_FIELDS = {FieldNo.SERVICE: "service", FieldNo.METHOD: "method"}
_TEXT_FIELDS = {
    FieldNo.PAYLOAD_ENCODING: "payload_encoding",
    FieldNo.PAYLOAD_TYPE: "payload_type",
    FieldNo.LOG_ID_NEW: "log_id_new",
}


def _assign(frame: Frame, number: int, value: int | bytes) -> None:
    """One decoded field into `frame`; unknown fields are ignored, as protobuf does."""
    if isinstance(value, int):
        if number in _INT_FIELDS:
            setattr(frame, _INT_FIELDS[FieldNo(number)], value)
        elif number in _INT32_FIELDS:
            setattr(frame, _INT32_FIELDS[FieldNo(number)], _int32(value))
    elif number == FieldNo.HEADERS:
        frame.headers.append(_header(value))
    elif number == FieldNo.PAYLOAD:
        frame.payload = value
    elif number in _TEXT_FIELDS:
        setattr(frame, _TEXT_FIELDS[FieldNo(number)], _text(value))


def _header(data: bytes) -> tuple[str, str]:
    found = {n: _text(v) for n, v in _fields(data) if isinstance(v, bytes)}
    return found.get(1, ""), found.get(2, "")


def _text(value: bytes) -> str:
    try:
        return value.decode()
    except UnicodeDecodeError as exc:
        raise FrameError("a string field is not UTF-8") from exc


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & INT32_SIGN else value


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """(field number, int or bytes) for every field; fixed-width ones are skipped."""
    found: list[tuple[int, int | bytes]] = []
    at = 0
    while at < len(data):
        key, at = _read_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, at = _read_varint(data, at)
            found.append((number, value))
        elif wire == LENGTH_DELIMITED:
            size, at = _read_varint(data, at)
            if at + size > len(data):
                raise FrameError("a field runs past the end of the frame")
            found.append((number, data[at : at + size]))
            at += size
        elif wire in (FIXED64, FIXED32):
            at += 8 if wire == FIXED64 else 4
        else:
            raise FrameError(f"unsupported wire type {wire}")
    if at != len(data):
        raise FrameError("truncated frame")
    return found


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for index in range(MAX_VARINT_BYTES):
        if at >= len(data):
            raise FrameError("truncated varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << (7 * index)
        if not byte & 0x80:
            return value, at
    raise FrameError("varint longer than 10 bytes")


def _write_varint(out: bytearray, value: int) -> None:
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def _varint_field(out: bytearray, number: int, value: int) -> None:
    _write_varint(out, number << 3 | VARINT)
    _write_varint(out, value)


def _bytes_field(out: bytearray, number: int, value: bytes) -> None:
    _write_varint(out, number << 3 | LENGTH_DELIMITED)
    _write_varint(out, len(value))
    out.extend(value)
