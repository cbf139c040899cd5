// Frames of the control protocol (docs/protocol.md): a 4-byte little-endian payload length,
// a 1-byte frame type, then the payload. The decoder is pure (no I/O) and takes any byte
// sequence: what is not a well-formed frame is reported, never trusted, and it never holds
// more than one frame's worth of input (the fuzz target tests/fuzz/fuzz_frames.cpp keeps it so).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stackscope::protocol {

// The largest payload either side sends or accepts. A request is a small JSON object; the
// recording's bytes are cut into stream frames of at most this size.
inline constexpr uint32_t kMaxFramePayload = 1u << 20;  // 1 MiB
inline constexpr size_t kFrameHeaderBytes = 5;

enum class FrameType : uint8_t {
  Request = 1,  // client -> agent: a JSON command object
  Reply = 2,    // agent -> client: the JSON answer to one request
  Error = 3,    // agent -> client: a JSON error about the connection; the agent closes it after
  Stream = 4,   // agent -> client: bytes of the recording, in order (the stream command)
};
inline constexpr uint8_t kMaxFrameType = 4;

struct Frame {
  FrameType type = FrameType::Request;
  std::string payload;
};

// Appends one frame to `out`. The caller keeps payloads within kMaxFramePayload.
void appendFrame(std::string& out, FrameType type, std::string_view payload);

enum class DecodeResult : uint8_t {
  Frame,        // `out` holds the next frame
  NeedMore,     // no complete frame buffered yet
  Oversized,    // the header announces more than the maximum payload
  UnknownType,  // the header names no frame type of this version
};
const char* describe(DecodeResult result);

class FrameDecoder {
 public:
  explicit FrameDecoder(uint32_t max_payload = kMaxFramePayload) : max_payload_(max_payload) {}

  // Adds bytes received. Call next() until it stops returning Frame before feeding more, so
  // the buffer stays within one frame plus one read.
  void feed(const char* data, size_t size) { buffer_.append(data, size); }
  // The next complete frame. After Oversized or UnknownType the stream cannot be resynchronised:
  // the decoder keeps answering the same and the connection must be closed.
  DecodeResult next(Frame& out);
  size_t buffered() const { return buffer_.size() - consumed_; }

 private:
  uint32_t max_payload_;
  std::string buffer_;
  size_t consumed_ = 0;  // bytes of buffer_ already returned as frames
};

}  // namespace stackscope::protocol
