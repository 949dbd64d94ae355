// Writing safetensors with the reference implementation's layout: compact header, "__metadata__"
// first, padded with spaces to a multiple of 8, data ordered by dtype size (largest first) then
// name, so each tensor starts at a multiple of its element size.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "distlab/files/atomic_file.hpp"
#include "distlab/formats/safetensors.hpp"
#include "safetensors_header.hpp"

namespace distlab {
namespace {

using Item = std::pair<const std::string, SafeTensor>;

struct Layout {
    std::string header;  ///< JSON, padded
    std::vector<const Item*> order;
};

std::string quoted(const std::string& text, const std::string& what) {
    try {
        return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    } catch (const nlohmann::json::type_error&) {
        throw InputError("cannot write " + what + ": it is not valid UTF-8");
    }
}

void checkTensor(const std::string& name, const SafeTensor& tensor) {
    if (name == "__metadata__") throw InputError("cannot write a tensor named __metadata__ (the name is reserved)");
    std::uint64_t elements = 1;
    bool overflow = false;
    for (const std::int64_t dim : tensor.shape) {
        if (dim < 0) throw InputError("cannot write " + name + ": negative dimension in shape " + shapeToString(tensor.shape));
        overflow = overflow || __builtin_mul_overflow(elements, static_cast<std::uint64_t>(dim), &elements);
    }
    std::uint64_t bytes = 0;
    overflow = overflow || __builtin_mul_overflow(elements, safeDTypeSize(tensor.dtype), &bytes);
    if (overflow || bytes != tensor.bytes.size()) {
        throw InputError("cannot write " + name + ": it holds " + std::to_string(tensor.bytes.size()) + " bytes, but " +
                         std::string(safeDTypeName(tensor.dtype)) + " " + shapeToString(tensor.shape) + " needs " +
                         (overflow ? std::string("more than 2^64") : std::to_string(bytes)));
    }
}

Layout planLayout(const SafeTensorsFile& file) {
    Layout layout;
    for (const Item& item : file.tensors) {
        checkTensor(item.first, item.second);
        layout.order.push_back(&item);
    }
    std::stable_sort(layout.order.begin(), layout.order.end(), [](const Item* a, const Item* b) {
        return safeDTypeSize(a->second.dtype) > safeDTypeSize(b->second.dtype);  // map order keeps names sorted
    });

    std::string& header = layout.header;
    header += '{';
    if (!file.metadata.empty()) {
        header += "\"__metadata__\":{";
        bool first = true;
        for (const auto& [key, value] : file.metadata) {
            if (!first) header += ',';
            first = false;
            header += quoted(key, "metadata key " + key) + ':' + quoted(value, "metadata value of " + key);
        }
        header += '}';
    }
    std::uint64_t offset = 0;
    for (const Item* item : layout.order) {
        const SafeTensor& tensor = item->second;
        if (header.size() > 1) header += ',';
        header += quoted(item->first, "tensor name " + item->first);
        header += ":{\"dtype\":\"" + std::string(safeDTypeName(tensor.dtype)) + "\",\"shape\":[";
        for (std::size_t axis = 0; axis < tensor.shape.size(); ++axis) {
            if (axis > 0) header += ',';
            header += std::to_string(tensor.shape[axis]);
        }
        const std::uint64_t end = offset + tensor.bytes.size();
        header += "],\"data_offsets\":[" + std::to_string(offset) + ',' + std::to_string(end) + "]}";
        offset = end;
    }
    header += '}';
    header.append((8 - header.size() % 8) % 8, ' ');
    if (header.size() > safetensors_detail::kMaxHeaderBytes) {
        throw InputError("cannot write: the header would be " + std::to_string(header.size()) + " bytes, more than readers accept");
    }
    return layout;
}

void appendLittleEndian64(std::string& out, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

}  // namespace

Result<std::vector<std::byte>> serializeSafeTensors(const SafeTensorsFile& file) {
    return captureErrors([&] {
        const Layout layout = planLayout(file);
        std::string prefix;
        appendLittleEndian64(prefix, layout.header.size());
        std::vector<std::byte> bytes;
        const auto append = [&](const void* data, std::size_t count) {
            const auto* first = static_cast<const std::byte*>(data);
            bytes.insert(bytes.end(), first, first + count);
        };
        append(prefix.data(), prefix.size());
        append(layout.header.data(), layout.header.size());
        for (const Item* item : layout.order) append(item->second.bytes.data(), item->second.bytes.size());
        return bytes;
    });
}

Status writeSafeTensors(const std::string& path, const SafeTensorsFile& file) {
    auto layout = captureErrors([&] { return planLayout(file); });
    if (!layout) return Error{path + ": " + layout.error().message};
    auto writer = AtomicFileWriter::create(path);
    if (!writer) return writer.error();
    std::string prefix;
    appendLittleEndian64(prefix, layout->header.size());
    writer->write(prefix);
    writer->write(layout->header);
    for (const Item* item : layout->order) writer->write(item->second.bytes);
    return writer->commit();
}

}  // namespace distlab
