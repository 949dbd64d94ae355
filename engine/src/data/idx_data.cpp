// IDX files (MNIST, Fashion-MNIST), plain or gzip: a header of 00 00, a type code, a dimension
// count and big-endian 32-bit sizes, then the data. Images are unsigned bytes scaled to [0, 1].
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "data/data_sources.hpp"
#include "files/byte_stream.hpp"

namespace distlab::data {
namespace {

constexpr std::uint8_t kTypeUnsignedByte = 0x08;

struct IdxArray {
    std::vector<std::int64_t> dims;
    std::vector<std::uint8_t> data;
    std::uint64_t dataOffset = 0;  ///< byte offset of data[0] in the (uncompressed) file
};

const char* typeName(std::uint8_t code) {
    switch (code) {
        case 0x08:
            return "unsigned byte";
        case 0x09:
            return "signed byte";
        case 0x0B:
            return "int16";
        case 0x0C:
            return "int32";
        case 0x0D:
            return "float32";
        case 0x0E:
            return "float64";
        default:
            return "unknown";
    }
}

std::string hexByte(std::uint8_t value) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", value);
    return text;
}

/// Reads one IDX file of unsigned bytes with `minDims`..`maxDims` dimensions.
IdxArray readIdx(const std::string& field, const std::string& name, const std::string& fullPath, std::uint8_t minDims,
                 std::uint8_t maxDims) {
    const InputFile file = InputFile::open(InputKind::Idx, {field, name, fullPath});
    ByteStream in(file);
    const std::string where = name + (in.compressed() ? " (after gunzip)" : "");
    std::uint8_t header[4];
    if (const auto got = in.read(header, 4); got < 4) {
        throw InputError(where + ": truncated: the 4-byte IDX header ends at byte offset " + std::to_string(got));
    }
    if (header[0] != 0 || header[1] != 0) {
        throw InputError(where + ": byte offset 0: wrong magic " + hexByte(header[0]) + " " + hexByte(header[1]) +
                         " (an IDX file starts with 0x00 0x00, a type code and a dimension count)");
    }
    if (header[2] != kTypeUnsignedByte) {
        throw InputError(where + ": byte offset 2: unsupported type code " + hexByte(header[2]) + " (" + typeName(header[2]) +
                         "); only 0x08 (unsigned byte) is supported");
    }
    if (header[3] < minDims || header[3] > maxDims) {
        throw InputError(where + ": byte offset 3: " + std::to_string(header[3]) + " dimensions; expected " +
                         (minDims == maxDims ? std::to_string(minDims) : "at least " + std::to_string(minDims)));
    }
    IdxArray array;
    std::vector<std::uint8_t> sizes(std::size_t{4} * header[3]);
    if (const auto got = in.read(sizes.data(), sizes.size()); got < sizes.size()) {
        throw InputError(where + ": truncated: the dimension sizes end at byte offset " + std::to_string(4 + got) + " (expected " +
                         std::to_string(4 + sizes.size()) + " header bytes)");
    }
    std::uint64_t total = 1;  // saturates instead of overflowing
    for (std::size_t i = 0; i < header[3]; ++i) {
        const std::uint8_t* b = sizes.data() + 4 * i;
        const std::int64_t dim = (std::int64_t{b[0]} << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
        if (dim == 0 && i > 0) {
            throw InputError(where + ": byte offset " + std::to_string(4 + 4 * i) + ": dimension " + std::to_string(i) + " is 0");
        }
        array.dims.push_back(dim);
        const auto udim = static_cast<std::uint64_t>(dim);
        total = (udim != 0 && total > UINT64_MAX / udim) ? UINT64_MAX : total * udim;
    }
    // Checked before allocating, so a corrupt header cannot ask for terabytes (more than the file
    // can hold), nor a small gzip file for gigabytes (more than the cap on inflated data).
    if (const std::uint64_t bound = in.remainingBound(); total > bound) {
        throw InputError(where + ": truncated: the header announces " + std::to_string(total) + " bytes of data after byte offset " +
                         std::to_string(in.offset()) +
                         (in.compressed() ? ", more than the compressed file can hold (at most " + std::to_string(bound) + ")"
                                          : ", but the file ends at byte offset " + std::to_string(in.offset() + bound)));
    }
    in.requireRoom(total, "its header announces " + std::to_string(total) + " bytes of data");
    array.dataOffset = in.offset();
    array.data.resize(static_cast<std::size_t>(total));
    if (const auto got = in.read(array.data.data(), array.data.size()); got < array.data.size()) {
        throw InputError(where + ": truncated: expected " + std::to_string(total) + " bytes of data after byte offset " +
                         std::to_string(array.dataOffset) + ", the data ends at byte offset " + std::to_string(in.offset()));
    }
    std::uint8_t extra = 0;
    if (in.read(&extra, 1) > 0) {  // also makes inflate check the gzip CRC
        throw InputError(where + ": byte offset " + std::to_string(in.offset() - 1) + ": more data than the header announces");
    }
    return array;
}

/// One images file and its labels file as a data set; labels must be below `classes` (0: any).
Dataset readPair(const std::string& imagesField, const std::string& imagesName, const std::string& imagesPath,
                 const std::string& labelsField, const std::string& labelsName, const std::string& labelsPath, std::int64_t classes) {
    const IdxArray images = readIdx(imagesField, imagesName, imagesPath, 2, 255);
    const IdxArray labels = readIdx(labelsField, labelsName, labelsPath, 1, 1);
    if (images.dims[0] != labels.dims[0]) {
        throw InputError(labelsName + ": holds " + std::to_string(labels.dims[0]) + " labels but " + imagesName + " holds " +
                         std::to_string(images.dims[0]) + " images (counts at byte offset 4)");
    }
    if (images.dims[0] == 0) throw InputError(imagesName + ": byte offset 4: holds no images");
    Dataset out;
    out.count = images.dims[0];
    out.features = static_cast<std::int64_t>(images.data.size()) / out.count;
    out.x.resize(images.data.size());
    float scaled[256];  // a table keeps v / 255 exact and the loop a plain gather
    for (int v = 0; v < 256; ++v) scaled[v] = static_cast<float>(v) / 255.0f;
    for (std::size_t i = 0; i < images.data.size(); ++i) out.x[i] = scaled[images.data[i]];
    out.labels.resize(labels.data.size());
    std::int64_t maxLabel = 0;
    for (std::size_t i = 0; i < labels.data.size(); ++i) {
        const std::uint8_t label = labels.data[i];
        if (classes > 0 && label >= classes) {
            throw InputError(labelsName + ": byte offset " + std::to_string(labels.dataOffset + i) + ": label " + std::to_string(label) +
                             " is out of range [0, " + std::to_string(classes) + ") (the model predicts " + std::to_string(classes) +
                             (classes == 1 ? " class)" : " classes)"));
        }
        out.labels[i] = label;
        maxLabel = std::max<std::int64_t>(maxLabel, label);
    }
    out.classes = classes > 0 ? classes : maxLabel + 1;
    return out;
}

void checkClassification(const char* source, const DataExpectations& expect) {
    if (expect.outputs > 0) {
        throw InputError(std::string("data.source: ") + source +
                         " data holds class labels; use loss softmax_cross_entropy (mse needs csv, random or a "
                         "regression_* synthetic kind)");
    }
}

/// Gives train and test the same class count and checks that their features agree.
void reconcile(DataSplit& split, const std::string& trainName, const std::string& testName) {
    if (split.test.count > 0 && split.test.features != split.train.features) {
        throw InputError(testName + ": images of " + std::to_string(split.test.features) + " values, but " + trainName + " has images of " +
                         std::to_string(split.train.features));
    }
    if (split.test.count == 0) split.test = emptyLike(split.train);
    const std::int64_t classes = std::max(split.train.classes, split.test.classes);
    split.train.classes = classes;
    split.test.classes = classes;
}

}  // namespace

DataSplit loadIdx(const DataConfig& config, const DataExpectations& expect, const std::string& baseDirectory) {
    checkClassification("idx", expect);
    if (config.images.empty()) throw InputError("data.images: required for source idx");
    if (config.labels.empty()) throw InputError("data.labels: required for source idx");
    if (config.testImages.empty() != config.testLabels.empty()) {
        throw InputError(config.testImages.empty() ? "data.test_images: required when data.test_labels is set"
                                                   : "data.test_labels: required when data.test_images is set");
    }
    DataSplit split;
    split.train = readPair("data.images", config.images, resolvePath(config.images, baseDirectory), "data.labels", config.labels,
                           resolvePath(config.labels, baseDirectory), expect.classes);
    if (!config.testImages.empty()) {
        split.test = readPair("data.test_images", config.testImages, resolvePath(config.testImages, baseDirectory), "data.test_labels",
                              config.testLabels, resolvePath(config.testLabels, baseDirectory), expect.classes);
    }
    reconcile(split, config.images, config.testImages);
    return split;
}

DataSplit loadFashionMnist(const DataExpectations& expect, const std::string& directory) {
    constexpr std::int64_t kClasses = 10;
    checkClassification("fashion_mnist", expect);
    if (expect.classes > 0 && expect.classes < kClasses) {
        throw InputError("data.source: fashion_mnist has 10 classes but the model predicts " + std::to_string(expect.classes) +
                         "; give the last layer 10 units");
    }
    auto file = [&](const char* name) {
        std::string path = (std::filesystem::path(directory) / name).string();
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            throw InputError("data.source: fashion_mnist: " + path +
                             " is missing; install Debian's dataset-fashion-mnist package "
                             "(apt install dataset-fashion-mnist)");
        }
        return path;
    };
    const std::string trainImages = file(kFashionMnistFiles[0]);
    const std::string trainLabels = file(kFashionMnistFiles[1]);
    const std::string testImages = file(kFashionMnistFiles[2]);
    const std::string testLabels = file(kFashionMnistFiles[3]);
    const std::int64_t classes = expect.classes > 0 ? expect.classes : kClasses;
    DataSplit split;
    split.train = readPair("data.source", trainImages, trainImages, "data.source", trainLabels, trainLabels, classes);
    split.test = readPair("data.source", testImages, testImages, "data.source", testLabels, testLabels, classes);
    reconcile(split, trainImages, testImages);
    return split;
}

}  // namespace distlab::data
