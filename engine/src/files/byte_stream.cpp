#include "files/byte_stream.hpp"

#include <algorithm>

#include "distlab/core/error.hpp"

namespace distlab {
namespace {

// Deflate never expands more than 1032:1; the margin covers output pending inside inflate.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
constexpr std::uint64_t kInflateMargin = std::uint64_t{1} << 20;
// Compressed bytes read from the file per refill.
constexpr std::size_t kInputBlock = std::size_t{1} << 18;
// z_stream counts in uInt: output is handed over in blocks below 4 GiB.
constexpr std::size_t kOutputBlock = std::size_t{1} << 30;

}  // namespace

ByteStream::ByteStream(const InputFile& file) : m_file(file), m_name(file.name().path) {
    std::uint8_t magic[2] = {0, 0};
    m_gzip = file.readAtMost(0, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!m_gzip) return;
    m_input.resize(kInputBlock);
    m_zstream.next_in = m_input.data();
    m_zstream.avail_in = 0;
    if (inflateInit2(&m_zstream, 15 + 16) != Z_OK) {  // 16: expect a gzip wrapper
        m_gzip = false;
        throw InputError(m_name + ": cannot start gzip decompression (out of memory)");
    }
}

ByteStream::~ByteStream() {
    if (m_gzip) inflateEnd(&m_zstream);
}

std::uint64_t ByteStream::remainingBound() const {
    if (!m_gzip) return m_file.size() - m_filePosition;
    if (m_ended) return 0;
    const std::uint64_t unread = m_file.size() - m_filePosition + m_zstream.avail_in;
    return unread * kMaxDeflateRatio + kInflateMargin;
}

void ByteStream::requireRoom(std::uint64_t bytes, std::string_view measured) const {
    const std::uint64_t cap = m_file.maxBytes();
    if (m_offset > cap || bytes > cap - m_offset) m_file.failTooLarge(measured);
}

std::size_t ByteStream::read(std::uint8_t* dst, std::size_t n) {
    std::size_t got = 0;
    if (m_gzip) {
        got = readGzip(dst, n);
    } else {
        got = m_file.readAtMost(m_filePosition, dst, n);
        m_filePosition += got;
    }
    m_offset += got;
    return got;
}

std::size_t ByteStream::readGzip(std::uint8_t* dst, std::size_t n) {
    std::size_t produced = 0;
    while (produced < n && !m_ended) {
        if (m_zstream.avail_in == 0) {
            const std::size_t got = m_file.readAtMost(m_filePosition, m_input.data(), m_input.size());
            m_filePosition += got;
            m_zstream.next_in = m_input.data();
            m_zstream.avail_in = static_cast<uInt>(got);
        }
        m_zstream.next_out = dst + produced;
        m_zstream.avail_out = static_cast<uInt>(std::min(kOutputBlock, n - produced));
        const uInt before = m_zstream.avail_out;
        const int rc = inflate(&m_zstream, Z_NO_FLUSH);
        produced += before - m_zstream.avail_out;
        // The cap counts decoded bytes, so a bomb stops at the cap whatever its header said.
        if (m_offset + produced > m_file.maxBytes())
            m_file.failTooLarge("after gunzip it holds more than " + std::to_string(m_file.maxBytes()) + " bytes");
        if (rc == Z_STREAM_END) {
            m_ended = true;
        } else if (rc == Z_BUF_ERROR) {  // no progress possible: the input ran out
            throw InputError(m_name + ": the gzip stream ends early at compressed byte offset " + std::to_string(m_zstream.total_in) +
                             " (the file is truncated)");
        } else if (rc != Z_OK) {
            const char* reason = m_zstream.msg ? m_zstream.msg : "invalid data";
            throw InputError(m_name + ": corrupt gzip data near compressed byte offset " + std::to_string(m_zstream.total_in) + ": " +
                             reason);
        }
    }
    return produced;
}

}  // namespace distlab
