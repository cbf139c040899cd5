#include "protocol/frame.h"

namespace stackscope::protocol {

void appendFrame(std::string& out, FrameType type, std::string_view payload) {
  const auto size = static_cast<uint32_t>(payload.size());
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((size >> shift) & 0xff));
  out.push_back(static_cast<char>(type));
  out.append(payload);
}

const char* describe(DecodeResult result) {
  switch (result) {
    case DecodeResult::Frame: return "a frame";
    case DecodeResult::NeedMore: return "an incomplete frame";
    case DecodeResult::Oversized: return "a frame larger than the maximum payload";
    case DecodeResult::UnknownType: return "a frame of unknown type";
  }
  return "?";
}

DecodeResult FrameDecoder::next(Frame& out) {
  const size_t available = buffer_.size() - consumed_;
  if (available < kFrameHeaderBytes) {
    // Compact only between frames, so a frame's bytes are moved at most once.
    buffer_.erase(0, consumed_);
    consumed_ = 0;
    return DecodeResult::NeedMore;
  }
  const auto* header = reinterpret_cast<const unsigned char*>(buffer_.data() + consumed_);
  const uint32_t size = uint32_t{header[0]} | uint32_t{header[1]} << 8 | uint32_t{header[2]} << 16 |
                        uint32_t{header[3]} << 24;
  const uint8_t type = header[4];
  if (size > max_payload_) return DecodeResult::Oversized;
  if (type == 0 || type > kMaxFrameType) return DecodeResult::UnknownType;
  if (available - kFrameHeaderBytes < size) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
    return DecodeResult::NeedMore;
  }
  out.type = static_cast<FrameType>(type);
  out.payload.assign(buffer_, consumed_ + kFrameHeaderBytes, size);
  consumed_ += kFrameHeaderBytes + size;
  return DecodeResult::Frame;
}

}  // namespace stackscope::protocol
