#include "protocol/frame.h"

#include <gtest/gtest.h>

namespace stackscope::protocol {
namespace {

std::string frameOf(FrameType type, std::string_view payload) {
  std::string out;
  appendFrame(out, type, payload);
  return out;
}

TEST(Frame, HeaderIsLittleEndianLengthThenType) {
  const std::string frame = frameOf(FrameType::Reply, "abc");
  ASSERT_EQ(frame.size(), kFrameHeaderBytes + 3);
  EXPECT_EQ(frame.substr(0, 5), std::string("\x03\x00\x00\x00\x02", 5));
  EXPECT_EQ(frame.substr(5), "abc");
}

TEST(Frame, DecodesFramesSplitAtEveryByte) {
  const std::string stream = frameOf(FrameType::Request, "{\"cmd\":\"status\"}") + frameOf(FrameType::Stream, "") +
                             frameOf(FrameType::Stream, std::string(1000, 'x'));
  FrameDecoder decoder;
  std::vector<Frame> frames;
  for (char byte : stream) {
    decoder.feed(&byte, 1);
    Frame frame;
    DecodeResult result;
    while ((result = decoder.next(frame)) == DecodeResult::Frame) frames.push_back(frame);
    ASSERT_EQ(result, DecodeResult::NeedMore);
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].type, FrameType::Request);
  EXPECT_EQ(frames[0].payload, "{\"cmd\":\"status\"}");
  EXPECT_EQ(frames[1].type, FrameType::Stream);
  EXPECT_TRUE(frames[1].payload.empty());
  EXPECT_EQ(frames[2].payload, std::string(1000, 'x'));
  EXPECT_EQ(decoder.buffered(), 0u);
}

TEST(Frame, MaximumPayloadIsAcceptedOneMoreIsOversized) {
  FrameDecoder decoder(16);
  const std::string fits = frameOf(FrameType::Request, std::string(16, 'a'));
  decoder.feed(fits.data(), fits.size());
  Frame frame;
  EXPECT_EQ(decoder.next(frame), DecodeResult::Frame);
  // Refused from the header alone: the 17 bytes announced never need to arrive.
  const std::string header("\x11\x00\x00\x00\x01", 5);
  decoder.feed(header.data(), header.size());
  EXPECT_EQ(decoder.next(frame), DecodeResult::Oversized);
  EXPECT_EQ(decoder.next(frame), DecodeResult::Oversized);  // and stays so: no resynchronising
}

TEST(Frame, HugeLengthIsOversizedNotAllocated) {
  FrameDecoder decoder;
  const std::string header("\xff\xff\xff\xff\x01", 5);
  decoder.feed(header.data(), header.size());
  Frame frame;
  EXPECT_EQ(decoder.next(frame), DecodeResult::Oversized);
}

TEST(Frame, UnknownTypesAreRefused) {
  for (unsigned char type : {0, 5, 255}) {
    FrameDecoder decoder;
    const std::string header = std::string("\x00\x00\x00\x00", 4) + static_cast<char>(type);
    decoder.feed(header.data(), header.size());
    Frame frame;
    EXPECT_EQ(decoder.next(frame), DecodeResult::UnknownType) << int(type);
  }
}

TEST(Frame, IncompleteHeaderAndPayloadWaitForMore) {
  FrameDecoder decoder;
  const std::string frame_bytes = frameOf(FrameType::Reply, "0123456789");
  decoder.feed(frame_bytes.data(), 4);
  Frame frame;
  EXPECT_EQ(decoder.next(frame), DecodeResult::NeedMore);
  decoder.feed(frame_bytes.data() + 4, 6);
  EXPECT_EQ(decoder.next(frame), DecodeResult::NeedMore);
  decoder.feed(frame_bytes.data() + 10, frame_bytes.size() - 10);
  ASSERT_EQ(decoder.next(frame), DecodeResult::Frame);
  EXPECT_EQ(frame.payload, "0123456789");
}

}  // namespace
}  // namespace stackscope::protocol
