#pragma once
// Internal: an InputFile's bytes as a stream that inflates gzip data (magic 1f 8b) on the fly, so
// loaders read plain and .gz files alike in large blocks. The decoded bytes are capped at the
// file's kind's limit (InputFile::maxBytes), so a small gzip bomb stops there with a clear error.
#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "distlab/files/input_file.hpp"

namespace distlab {

class ByteStream {
public:
    /// Streams `file`, which must outlive the stream; sniffs the gzip magic. Throws InputError.
    explicit ByteStream(const InputFile& file);
    ~ByteStream();
    ByteStream(const ByteStream&) = delete;
    ByteStream& operator=(const ByteStream&) = delete;

    /// Reads up to n bytes into dst; fewer only at the end of the data. Throws InputError on a
    /// corrupt or truncated gzip stream (naming the compressed byte offset) and when the decoded
    /// data passes the cap.
    std::size_t read(std::uint8_t* dst, std::size_t n);
    /// Decoded bytes read so far: the byte offset of the next byte in the (uncompressed) data.
    std::uint64_t offset() const { return m_offset; }
    bool compressed() const { return m_gzip; }
    /// An upper bound for the decoded bytes still to come (exact for plain files), so a header can
    /// be checked before its announced size is allocated.
    std::uint64_t remainingBound() const;
    /// Throws the file's cap error, starting with `measured` (e.g. "its header announces N bytes"),
    /// when `bytes` more decoded bytes would pass the cap; checked before allocating them.
    void requireRoom(std::uint64_t bytes, std::string_view measured) const;

private:
    std::size_t readGzip(std::uint8_t* dst, std::size_t n);

    const InputFile& m_file;
    std::string m_name;  ///< the path as given: prefixes gzip errors
    bool m_gzip = false;
    bool m_ended = false;
    std::uint64_t m_filePosition = 0;  ///< next byte to read from the file (compressed bytes for gzip)
    std::uint64_t m_offset = 0;
    std::vector<std::uint8_t> m_input;  ///< compressed bytes waiting for inflate
    z_stream m_zstream{};
};

}  // namespace distlab
