// Fixed on-disk structures of the recording format v1 (see docs/format.md, "Layout").
#pragma once

#include <cstddef>
#include <cstdint>

namespace stackscope::format::layout {

// File header: magic(8) version(u16) oldest_reader(u16) features(u32).
inline constexpr unsigned char kFileMagic[8] = {0x89, 'S', 'S', 'R', '\r', '\n', 0x1a, '\n'};
inline constexpr size_t kFileHeaderSize = 16;

// Chunk header: magic(u32) kind(u8) compression(u8) reserved(u16) payload_size(u32)
// raw_size(u32) record_count(u32) payload_fnv(u32) start_ns(i64) end_ns(i64) header_fnv(u32).
inline constexpr uint32_t kChunkMagic = 0x4b484353;  // "SCHK"
inline constexpr size_t kChunkHeaderSize = 44;
inline constexpr size_t kChunkHeaderChecksummed = 40;  // header_fnv covers bytes [0, 40)
inline constexpr uint8_t kCompressionZstd = 1;
inline constexpr uint32_t kMaxChunkPayload = 64u << 20;  // larger sizes mean corruption

// Index: magic(u32) count(u32) map_count(u32) then per chunk offset(u64) kind(u8)
// payload_size(u32) raw_size(u32) record_count(u32) start_ns(i64) end_ns(i64) entry_fnv(u32
// over the entry's first 37 bytes, so an entry read alone is checked alone) -- the map
// chunks first, then the event chunks in file order, their end_ns never decreasing -- then
// index_fnv(u32) over everything before it. Entries repeat the chunk headers, so a reader
// plans from the index alone, and fixed-size entries let it binary-search a time.
inline constexpr uint32_t kIndexMagic = 0x58444953;  // "SIDX"
inline constexpr size_t kIndexHeaderSize = 12;
inline constexpr size_t kIndexEntrySize = 41;
inline constexpr size_t kIndexEntryChecksummed = 37;

// Trailer, the last 16 bytes of a finished file: index_offset(u64) magic(8).
inline constexpr unsigned char kTrailerMagic[8] = {'S', 'S', 'R', 'I', 'N', 'D', 'E', 'X'};
inline constexpr size_t kTrailerSize = 16;

}  // namespace stackscope::format::layout
