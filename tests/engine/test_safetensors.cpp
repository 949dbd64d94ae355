// Safetensors reading, writing and validation; atomic file replacement.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <QElapsedTimer>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "distlab/files/atomic_file.hpp"
#include "file_test_support.hpp"
#include "distlab/formats/safetensors.hpp"

using namespace distlab;

namespace {

constexpr const char* kBadName = "bad.safetensors";

QByteArray toQByteArray(std::span<const std::byte> bytes) {
    return QByteArray(reinterpret_cast<const char*>(bytes.data()), static_cast<qsizetype>(bytes.size()));
}

std::span<const std::byte> asBytes(const QByteArray& bytes) {
    return {reinterpret_cast<const std::byte*>(bytes.constData()), static_cast<std::size_t>(bytes.size())};
}

QByteArray littleEndian64(std::uint64_t value) {
    QByteArray out;
    for (int i = 0; i < 8; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
    return out;
}

/// A file with the given header length prefix, header text and `dataBytes` data bytes (0x11 each).
QByteArray craftWithLength(std::uint64_t headerLength, const QByteArray& header, int dataBytes) {
    return littleEndian64(headerLength) + header + QByteArray(dataBytes, '\x11');
}

QByteArray craft(const QByteArray& header, int dataBytes) { return craftWithLength(header.size(), header, dataBytes); }

QString errorText(const Error& error) { return QString::fromStdString(error.message); }

std::vector<std::byte> rawBytes(std::initializer_list<int> values) {
    std::vector<std::byte> out;
    for (const int v : values) out.push_back(static_cast<std::byte>(v));
    return out;
}

SafeTensorsFile sampleFile(std::size_t floats) {
    SafeTensorsFile file;
    std::vector<float> values(floats);
    for (std::size_t i = 0; i < floats; ++i) values[i] = 0.5f * static_cast<float>(i) - 3.0f;
    file.tensors["dense_0/kernel"] = makeF32Tensor({static_cast<std::int64_t>(floats)}, values);
    const std::vector<std::int64_t> step{42};
    file.tensors["step"] = makeSafeTensor<std::int64_t>({}, step);
    file.metadata["config"] = "{\"seed\": 1}";
    return file;
}

}  // namespace

class TestSafeTensors : public QObject {
    Q_OBJECT

private slots:
    void dtypeNamesAndSizes() {
        const std::vector<std::pair<SafeDType, std::pair<const char*, std::size_t>>> expected{
            {SafeDType::Bool, {"BOOL", 1}},      {SafeDType::U8, {"U8", 1}},          {SafeDType::I8, {"I8", 1}},
            {SafeDType::F8E5M2, {"F8_E5M2", 1}}, {SafeDType::F8E4M3, {"F8_E4M3", 1}}, {SafeDType::I16, {"I16", 2}},
            {SafeDType::U16, {"U16", 2}},        {SafeDType::F16, {"F16", 2}},        {SafeDType::BF16, {"BF16", 2}},
            {SafeDType::I32, {"I32", 4}},        {SafeDType::U32, {"U32", 4}},        {SafeDType::F32, {"F32", 4}},
            {SafeDType::I64, {"I64", 8}},        {SafeDType::U64, {"U64", 8}},        {SafeDType::F64, {"F64", 8}},
        };
        for (const auto& [dtype, info] : expected) {
            QCOMPARE(QString::fromUtf8(safeDTypeName(dtype).data(), safeDTypeName(dtype).size()), QString(info.first));
            QCOMPARE(safeDTypeSize(dtype), info.second);
            QVERIFY(parseSafeDType(info.first) == dtype);
        }
        QVERIFY(!parseSafeDType("f32").has_value());
        QVERIFY(!parseSafeDType("").has_value());
        // The file's tags and the project's one DType.
        for (DType dtype : {DType::Float32, DType::Float16, DType::BFloat16, DType::Int32}) {
            QVERIFY(toDType(toSafeDType(dtype)) == dtype);
            QCOMPARE(safeDTypeSize(toSafeDType(dtype)), dtypeSize(dtype));
        }
        QVERIFY(!toDType(SafeDType::F64).has_value());
        QVERIFY(!toDType(SafeDType::Bool).has_value());
    }

    void roundTripEveryDtype() {
        SafeTensorsFile file;
        const std::vector<float> f32{1.5f, -2.25f, 3.0e-38f, 7.0f, 0.0f, -0.0f};
        const std::vector<double> f64{1e300, -2.5};
        const std::vector<std::int32_t> i32{-2147483647 - 1, 2147483647, 0};
        const std::vector<std::int64_t> i64{INT64_MIN, INT64_MAX};
        const std::vector<std::uint8_t> u8{0, 1, 255};
        const std::vector<std::int8_t> i8{-128, 127};
        const std::vector<std::uint16_t> u16{65535};
        const std::vector<std::int16_t> i16{-32768, 5};
        const std::vector<std::uint32_t> u32{4000000000u};
        const std::vector<std::uint64_t> u64{UINT64_MAX};
        file.tensors["f32"] = makeF32Tensor({2, 3}, f32);
        file.tensors["f64"] = makeSafeTensor<double>({2}, f64);
        file.tensors["i32"] = makeSafeTensor<std::int32_t>({3, 1}, i32);
        file.tensors["i64"] = makeSafeTensor<std::int64_t>({2}, i64);
        file.tensors["u8"] = makeSafeTensor<std::uint8_t>({3}, u8);
        file.tensors["i8"] = makeSafeTensor<std::int8_t>({2}, i8);
        file.tensors["u16"] = makeSafeTensor<std::uint16_t>({1}, u16);
        file.tensors["i16"] = makeSafeTensor<std::int16_t>({1, 2}, i16);
        file.tensors["u32"] = makeSafeTensor<std::uint32_t>({}, u32);
        file.tensors["u64"] = makeSafeTensor<std::uint64_t>({1, 1, 1}, u64);
        file.tensors["f16"] = SafeTensor{SafeDType::F16, {2}, rawBytes({0x00, 0x3C, 0x00, 0xC0})};
        file.tensors["bf16"] = SafeTensor{SafeDType::BF16, {1}, rawBytes({0x80, 0x3F})};
        file.tensors["bool"] = SafeTensor{SafeDType::Bool, {3}, rawBytes({1, 0, 1})};
        file.tensors["f8_e4m3"] = SafeTensor{SafeDType::F8E4M3, {1}, rawBytes({0x38})};
        file.tensors["f8_e5m2"] = SafeTensor{SafeDType::F8E5M2, {1}, rawBytes({0x3C})};
        file.tensors["empty"] = SafeTensor{SafeDType::F32, {0, 4}, {}};
        file.metadata["format"] = "pt";
        file.metadata["unicode"] = "h\xC3\xA9llo \"quoted\"\n";

        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const std::string path = folder.filePath("all.safetensors").toStdString();
        const Status written = writeSafeTensors(path, file);
        QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
        const auto read = readSafeTensors(path);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QCOMPARE(read->metadata, file.metadata);
        QCOMPARE(read->tensors.size(), file.tensors.size());
        for (const auto& [name, tensor] : file.tensors) {
            const SafeTensor& back = read->tensors.at(name);
            QVERIFY2(back.dtype == tensor.dtype, name.c_str());
            QVERIFY2(back.shape == tensor.shape, name.c_str());
            QCOMPARE(toQByteArray(back.bytes), toQByteArray(tensor.bytes));
        }
        QCOMPARE(entriesOf(folder.path()), QStringList{"all.safetensors"});

        // The file on disk equals the serialized bytes, and parsing those gives the same result.
        const auto serialized = serializeSafeTensors(file);
        QVERIFY(serialized.ok());
        QCOMPARE(readAll(folder.filePath("all.safetensors")), toQByteArray(*serialized));
        const auto parsed = parseSafeTensors(*serialized, "mem");
        QVERIFY(parsed.ok());
        QCOMPARE(parsed->tensors.size(), file.tensors.size());

        // Typed reads back.
        std::vector<double> f64Back(2);
        QVERIFY(copySafeTensor<double>(*read, "f64", {2}, f64Back, "all").ok());
        QCOMPARE(f64Back, f64);
        std::vector<std::int64_t> i64Back(2);
        QVERIFY(copySafeTensor<std::int64_t>(*read, "i64", {2}, i64Back, "all").ok());
        QCOMPARE(i64Back, i64);
        const auto f32Back = readF32Tensor(*read, "f32", {2, 3}, "all");
        QVERIFY(f32Back.ok());
        QCOMPARE(std::memcmp(f32Back->data(), f32.data(), f32.size() * sizeof(float)), 0);

        // Every tensor starts at a multiple of its element size, as in the reference layout.
        const QByteArray bytes = toQByteArray(*serialized);
        std::uint64_t headerLength = 0;
        std::memcpy(&headerLength, bytes.constData(), 8);
        QCOMPARE(headerLength % 8, std::uint64_t{0});
        const auto header = nlohmann::json::parse(bytes.mid(8, static_cast<qsizetype>(headerLength)).toStdString());
        for (const auto& [name, info] : header.items()) {
            if (name == "__metadata__") continue;
            const auto begin = info["data_offsets"][0].get<std::uint64_t>();
            QVERIFY2(begin % safeDTypeSize(*parseSafeDType(info["dtype"].get<std::string>())) == 0, name.c_str());
        }
    }

    void byteExactLayout() {
        SafeTensorsFile file;
        const std::vector<float> b{1.0f, -2.0f};
        const std::vector<std::uint8_t> a{1, 2, 3};
        const std::vector<std::int64_t> c{5};
        file.tensors["b"] = makeF32Tensor({2}, b);
        file.tensors["a"] = makeSafeTensor<std::uint8_t>({3}, a);
        file.tensors["c"] = makeSafeTensor<std::int64_t>({1}, c);
        file.metadata["format"] = "pt";
        // 193 bytes of JSON + 7 spaces = 200 = 0xC8; data ordered I64, F32, U8 (largest dtype first).
        const QByteArray expected = QByteArray("\xC8\x00\x00\x00\x00\x00\x00\x00", 8) +
                                    QByteArray(R"({"__metadata__":{"format":"pt"},"c":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
                                               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                                               R"("a":{"dtype":"U8","shape":[3],"data_offsets":[16,19]}}       )") +
                                    QByteArray(
                                        "\x05\x00\x00\x00\x00\x00\x00\x00"
                                        "\x00\x00\x80\x3F\x00\x00\x00\xC0"
                                        "\x01\x02\x03",
                                        19);
        const auto bytes = serializeSafeTensors(file);
        QVERIFY(bytes.ok());
        QCOMPARE(toQByteArray(*bytes), expected);

        // One F32 tensor and no metadata: what the reference writes for {"x": [1.0, 2.0]}.
        SafeTensorsFile single;
        const std::vector<float> x{1.0f, 2.0f};
        single.tensors["x"] = makeF32Tensor({2}, x);
        const QByteArray expectedSingle = QByteArray("\x38\x00\x00\x00\x00\x00\x00\x00", 8) +
                                          QByteArray(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}  )") +
                                          QByteArray("\x00\x00\x80\x3F\x00\x00\x00\x40", 8);
        QCOMPARE(toQByteArray(*serializeSafeTensors(single)), expectedSingle);

        // An empty file is just "{}" padded.
        QCOMPARE(toQByteArray(*serializeSafeTensors(SafeTensorsFile{})), QByteArray("\x08\x00\x00\x00\x00\x00\x00\x00{}      ", 16));
    }

    void goodEdgeCases_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("tensors");
        QTest::addColumn<int>("metadata");
        QTest::newRow("empty header object") << craft("{}", 0) << 0 << 0;
        QTest::newRow("metadata null") << craft(R"({"__metadata__":null})", 0) << 0 << 0;
        QTest::newRow("whitespace around") << craft("  {}    ", 0) << 0 << 0;
        QTest::newRow("zero-size tensor") << craft(R"({"z":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]}})", 0) << 1 << 0;
        QTest::newRow("scalar") << craft(R"({"s":{"dtype":"I64","shape":[],"data_offsets":[0,8]}})", 8) << 1 << 0;
        QTest::newRow("unknown field ignored") << craft(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2],"extra":true}})", 2) << 1
                                               << 0;
        QTest::newRow("listed out of offset order")
            << craft(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[4,6]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 6)
            << 2 << 0;
        QTest::newRow("metadata") << craft(R"({"__metadata__":{"k":"v","e":""},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1)
                                  << 1 << 2;
    }

    void goodEdgeCases() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, tensors);
        QFETCH(int, metadata);
        const auto parsed = parseSafeTensors(asBytes(bytes), "good.safetensors");
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
        QCOMPARE(static_cast<int>(parsed->tensors.size()), tensors);
        QCOMPARE(static_cast<int>(parsed->metadata.size()), metadata);
    }

    void badFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QString f = kBadName;
        const QByteArray okEntry = R"("dtype":"F32","shape":[2],"data_offsets":[0,8])";
        const auto entry = [](const QByteArray& fields) { return "{\"a\":{" + fields + "}}"; };

        QTest::newRow("empty file") << QByteArray() << f + ": the file is 0 bytes long, too short for the 8-byte header length";
        QTest::newRow("5 bytes") << QByteArray("\x02\0\0\0\0", 5)
                                 << f + ": the file is 5 bytes long, too short for the 8-byte header length";
        QTest::newRow("header length past the end")
            << craftWithLength(100, "{}", 0) << f + ": byte offset 0: header length 100 points past the end of the file (10 bytes)";
        QTest::newRow("header length one past the end")
            << craftWithLength(3, "{}", 0) << f + ": byte offset 0: header length 3 points past the end of the file (10 bytes)";
        QTest::newRow("header length 2^63")
            << craftWithLength(std::uint64_t{1} << 63, "{}", 0)
            << f + ": byte offset 0: header length 9223372036854775808 points past the end of the file (10 bytes)";
        QTest::newRow("header length 2^64-1")
            << craftWithLength(UINT64_MAX, "{}", 0)
            << f + ": byte offset 0: header length 18446744073709551615 points past the end of the file (10 bytes)";
        QTest::newRow("empty header") << craft("", 0)
                                      << f + ": byte offset 8: header is not valid JSON: syntax error while parsing value - unexpected end "
                                             "of input; expected '[', '{', or a literal";
        QTest::newRow("truncated JSON") << craft(R"({"a":)", 0)
                                        << f + ": byte offset 13: header is not valid JSON: syntax error while parsing value - unexpected "
                                               "end of input; expected '[', '{', or a literal";
        QTest::newRow("garbage after JSON") << craft("{} x", 0)
                                            << f + ": byte offset 11: header is not valid JSON: syntax error while parsing value - invalid "
                                                   "literal; last read: '{} x'; expected end of input";
        QTest::newRow("invalid UTF-8") << craft("{\"\xFF\":1}", 0)
                                       << f + ": byte offset 10: header is not valid JSON: syntax error while parsing object key - invalid "
                                              "string: ill-formed UTF-8 byte; last read: '\"<0xFF>'; expected string literal";
        QTest::newRow("not an object") << craft("[1,2]", 0) << f + ": byte offset 8: header must be a JSON object, got array";
        QTest::newRow("entry not an object") << craft(R"({"a":5})", 0)
                                             << f + ": a: expected an object with dtype, shape and data_offsets, got number";
        QTest::newRow("missing dtype") << craft(entry(R"("shape":[2],"data_offsets":[0,8])"), 8) << f + ": a: missing dtype";
        QTest::newRow("dtype not a string") << craft(entry(R"("dtype":4,"shape":[2],"data_offsets":[0,8])"), 8)
                                            << f + ": a: dtype must be a string, got number";
        QTest::newRow("unknown dtype") << craft(entry(R"("dtype":"F17","shape":[2],"data_offsets":[0,8])"), 8)
                                       << f + ": a: unsupported dtype \"F17\"";
        QTest::newRow("missing shape") << craft(entry(R"("dtype":"F32","data_offsets":[0,8])"), 8) << f + ": a: missing shape";
        QTest::newRow("shape not an array") << craft(entry(R"("dtype":"F32","shape":2,"data_offsets":[0,8])"), 8)
                                            << f + ": a: shape must be an array, got number";
        QTest::newRow("shape of strings") << craft(entry(R"("dtype":"F32","shape":["2"],"data_offsets":[0,8])"), 8)
                                          << f + ": a: shape[0] must be a non-negative integer, got string";
        QTest::newRow("negative dimension") << craft(entry(R"("dtype":"F32","shape":[2,-1],"data_offsets":[0,8])"), 8)
                                            << f + ": a: shape[1] is negative (-1)";
        QTest::newRow("fractional dimension") << craft(entry(R"("dtype":"F32","shape":[2.0],"data_offsets":[0,8])"), 8)
                                              << f + ": a: shape[0] must be a non-negative integer, got number";
        QTest::newRow("dimension too large") << craft(entry(R"("dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,8])"), 8)
                                             << f + ": a: shape[0] is too large (9223372036854775808)";
        QTest::newRow("missing data_offsets") << craft(entry(R"("dtype":"F32","shape":[2])"), 8) << f + ": a: missing data_offsets";
        QTest::newRow("data_offsets not an array") << craft(entry(R"("dtype":"F32","shape":[2],"data_offsets":"0-8")"), 8)
                                                   << f + ": a: data_offsets must be an array [begin, end]";
        QTest::newRow("three data_offsets") << craft(entry(R"("dtype":"F32","shape":[2],"data_offsets":[0,8,8])"), 8)
                                            << f + ": a: data_offsets must be an array [begin, end]";
        QTest::newRow("negative offset") << craft(entry(R"("dtype":"F32","shape":[2],"data_offsets":[-1,8])"), 8)
                                         << f + ": a: data_offsets[0] must be a non-negative integer, got -1";
        QTest::newRow("fractional offset") << craft(entry(R"("dtype":"F32","shape":[2],"data_offsets":[0,8.5])"), 8)
                                           << f + ": a: data_offsets[1] must be a non-negative integer, got 8.5";
        QTest::newRow("begin after end") << craft(entry(R"("dtype":"F32","shape":[2],"data_offsets":[8,0])"), 8)
                                         << f + ": a: data_offsets [8, 0]: begin is after end";
        QTest::newRow("offsets past the data") << craft(entry(R"("dtype":"F32","shape":[4],"data_offsets":[0,16])"), 8)
                                               << f + ": a: data_offsets [0, 16] run past the end of the data section (8 bytes)";
        QTest::newRow("begin past the data") << craft(entry(R"("dtype":"F32","shape":[0],"data_offsets":[9,9])"), 8)
                                             << f + ": a: data_offsets [9, 9] run past the end of the data section (8 bytes)";
        QTest::newRow("size disagrees with shape") << craft(entry(R"("dtype":"F32","shape":[3],"data_offsets":[0,8])"), 8)
                                                   << f + ": a: data_offsets [0, 8] hold 8 bytes, but F32 [3] needs 12";
        QTest::newRow("size disagrees with dtype") << craft(entry(R"("dtype":"F64","shape":[2],"data_offsets":[0,8])"), 8)
                                                   << f + ": a: data_offsets [0, 8] hold 8 bytes, but F64 [2] needs 16";
        QTest::newRow("element count overflows")
            << craft(entry(R"("dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,8])"), 8)
            << f + ": a: data_offsets [0, 8] hold 8 bytes, but U8 [4294967296, 4294967296] needs more than 2^64";
        QTest::newRow("byte count overflows")
            << craft(entry(R"("dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8])"), 8)
            << f + ": a: data_offsets [0, 8] hold 8 bytes, but F64 [4611686018427387904] needs more than 2^64";
        QTest::newRow("overlap") << craft(R"({"a":{)" + okEntry + R"(},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12)
                                 << f + ": b: data_offsets [4, 12] overlap a [0, 8]";
        QTest::newRow("same range twice") << craft(R"({"a":{)" + okEntry + R"(},"b":{)" + okEntry + "}}", 8)
                                          << f + ": b: data_offsets [0, 8] overlap a [0, 8]";
        {
            const QByteArray header = R"({"a":{)" + okEntry + R"(},"b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})";
            QTest::newRow("gap")
                << craft(header, 20)
                << f + QString(": byte offset %1: data bytes [8, 12) belong to no tensor (before b)").arg(8 + header.size() + 8);
        }
        {
            const QByteArray header = R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
            QTest::newRow("gap at the start")
                << craft(header, 12)
                << f + QString(": byte offset %1: data bytes [0, 4) belong to no tensor (before b)").arg(8 + header.size());
        }
        {
            const QByteArray header = entry(okEntry);
            QTest::newRow("trailing bytes")
                << craft(header, 12) << f + QString(": byte offset %1: 4 trailing bytes after the last tensor").arg(8 + header.size() + 8);
        }
        QTest::newRow("data without tensors") << craft("{}", 3) << f + ": byte offset 10: 3 trailing bytes after the last tensor";
        QTest::newRow("metadata not an object") << craft(R"({"__metadata__":[1]})", 0) << f + ": __metadata__ must be an object, got array";
        QTest::newRow("metadata value not a string")
            << craft(R"({"__metadata__":{"k":1}})", 0) << f + ": __metadata__.k: value must be a string, got number";
        QTest::newRow("metadata value null") << craft(R"({"__metadata__":{"k":null}})", 0)
                                             << f + ": __metadata__.k: value must be a string, got null";
        // Found by fuzz_safetensors: nlohmann throws out_of_range, not parse_error, for this (it crashed).
        QTest::newRow("number too large") << craft(R"({"__metadata__":1e999})", 0)
                                          << f + ": header is not valid JSON: number overflow parsing '1e999'";
        QTest::newRow("duplicate tensor name") << craft(R"({"a":{)" + okEntry + R"(},"a":{)" + okEntry + "}}", 8)
                                               << f + ": a: appears twice in the header";
    }

    void badFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const auto parsed = parseSafeTensors(asBytes(bytes), kBadName);
        QVERIFY(!parsed.ok());
        QCOMPARE(errorText(parsed.error()), expected);

        // The file reader gives the same message with its path in place of the name.
        QTemporaryDir folder;
        const QString path = folder.filePath(kBadName);
        writeRaw(path, bytes);
        const auto read = readSafeTensors(path.toStdString());
        QVERIFY(!read.ok());
        QCOMPARE(errorText(read.error()), path + expected.mid(static_cast<qsizetype>(std::strlen(kBadName))));
    }

    // The header parser is linear: nlohmann's callback parser rescanned the parent object at every
    // close, so 50,000 tensors took 17 s and 100,000 over a minute. Linear, 100,000 take well under 1 s.
    void manyTensorsParseInLinearTime() {
        QByteArray header = "{";
        constexpr int kTensors = 100'000;
        const QByteArray emptyEntry = "\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}";
        for (int i = 0; i < kTensors; ++i) header += (i ? "," : "") + QByteArray("\"t") + QByteArray::number(i) + emptyEntry;
        header += "}";
        QElapsedTimer timer;
        timer.start();
        const auto parsed = parseSafeTensors(asBytes(craft(header, 0)), kBadName);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
        QCOMPARE(parsed->tensors.size(), std::size_t{kTensors});
        QVERIFY2(timer.elapsed() < 10'000, qPrintable(QStringLiteral("%1 ms").arg(timer.elapsed())));
        // A duplicate among them is still found, by name.
        header.chop(1);
        header += ",\"t77" + emptyEntry + "}";
        const auto duplicate = parseSafeTensors(asBytes(craft(header, 0)), kBadName);
        QVERIFY(!duplicate.ok());
        QCOMPARE(errorText(duplicate.error()), QString::fromLatin1(kBadName) + ": t77: appears twice in the header");
    }

    void unreadableFiles() {
        QTemporaryDir folder;
        const QString missing = folder.filePath("missing.safetensors");
        QCOMPARE(errorText(readSafeTensors(missing.toStdString()).error()),
                 "safetensors: cannot read \"" + missing + "\": No such file or directory");
        QCOMPARE(errorText(readSafeTensors(folder.path().toStdString(), "--init-weights").error()),
                 "--init-weights: cannot read \"" + folder.path() + "\": it is a directory, not a regular file");
    }

    void writerRejectsBadTensors() {
        SafeTensorsFile file;
        file.tensors["w"] = SafeTensor{SafeDType::F32, {2, 2}, rawBytes({1, 2, 3})};
        QCOMPARE(errorText(serializeSafeTensors(file).error()), QString("cannot write w: it holds 3 bytes, but F32 [2, 2] needs 16"));
        QTemporaryDir folder;
        const QString path = folder.filePath("w.safetensors");
        QCOMPARE(errorText(writeSafeTensors(path.toStdString(), file).error()),
                 path + ": cannot write w: it holds 3 bytes, but F32 [2, 2] needs 16");
        QCOMPARE(entriesOf(folder.path()), QStringList{});

        file.tensors.clear();
        file.tensors["n"] = SafeTensor{SafeDType::U8, {-1}, {}};
        QCOMPARE(errorText(serializeSafeTensors(file).error()), QString("cannot write n: negative dimension in shape [-1]"));
        file.tensors.clear();
        file.tensors["__metadata__"] = SafeTensor{SafeDType::U8, {0}, {}};
        QCOMPARE(errorText(serializeSafeTensors(file).error()), QString("cannot write a tensor named __metadata__ (the name is reserved)"));
        file.tensors.clear();
        file.tensors["bad\xFF"] = SafeTensor{SafeDType::U8, {0}, {}};
        QCOMPARE(errorText(serializeSafeTensors(file).error()),
                 QString::fromUtf8("cannot write tensor name bad\xFF: it is not valid UTF-8"));

        const std::vector<float> three{1, 2, 3};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeF32Tensor({2, 2}, three));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeF32Tensor({-3}, three));
    }

    void atomicWriteReplacesAndKeepsMode() {
        QTemporaryDir folder;
        const QString path = folder.filePath("config.json");
        QVERIFY(writeFileAtomically(path.toStdString(), "first").ok());
        QCOMPARE(readAll(path), QByteArray("first"));
        QVERIFY(::chmod(path.toLocal8Bit().constData(), 0640) == 0);
        QVERIFY(writeFileAtomically(path.toStdString(), "second, longer").ok());
        QCOMPARE(readAll(path), QByteArray("second, longer"));
        struct stat info {};
        QVERIFY(::stat(path.toLocal8Bit().constData(), &info) == 0);
        QCOMPARE(info.st_mode & 07777, 0640u);
        QVERIFY(writeFileAtomically(path.toStdString(), "").ok());
        QCOMPARE(readAll(path), QByteArray());
        QCOMPARE(entriesOf(folder.path()), QStringList{"config.json"});
    }

    void atomicWriteDiscardsWithoutCommit() {
        QTemporaryDir folder;
        const QString path = folder.filePath("w.safetensors");
        writeRaw(path, "old");
        {
            auto writer = AtomicFileWriter::create(path.toStdString());
            QVERIFY(writer.ok());
            writer->write(std::string_view("new contents"));
            QCOMPARE(static_cast<int>(entriesOf(folder.path()).size()), 2);
        }
        QCOMPARE(readAll(path), QByteArray("old"));
        QCOMPARE(entriesOf(folder.path()), QStringList{"w.safetensors"});
    }

    void atomicWriteOntoFolderFails() {
        QTemporaryDir folder;
        const QString target = folder.filePath("taken");
        QVERIFY(QDir(folder.path()).mkdir("taken"));
        writeRaw(target + "/inside.txt", "keep");
        const Status status = writeSafeTensors(target.toStdString(), sampleFile(4));
        QVERIFY(!status.ok());
        QCOMPARE(errorText(status.error()), target + ": cannot write: it is a directory, not a regular file");
        QCOMPARE(entriesOf(folder.path()), QStringList{"taken"});
        QCOMPARE(readAll(target + "/inside.txt"), QByteArray("keep"));
    }

    void atomicWriteIntoMissingFolderFails() {
        QTemporaryDir folder;
        const QString path = folder.filePath("nope/w.safetensors");
        QCOMPARE(errorText(writeSafeTensors(path.toStdString(), sampleFile(4)).error()),
                 path + ": cannot create a temporary file in \"" + folder.filePath("nope") + "\": No such file or directory");
        QCOMPARE(entriesOf(folder.path()), QStringList{});
    }

    void failedWriteLeavesOldFile() {
        // A file-size limit makes the write fail half-way (EFBIG), even for root.
        QTemporaryDir folder;
        const QString path = folder.filePath("w.safetensors");
        const std::string pathText = path.toStdString();
        QVERIFY(writeSafeTensors(pathText, sampleFile(4)).ok());
        const QByteArray before = readAll(path);

        rlimit saved{};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
        const auto oldHandler = ::signal(SIGXFSZ, SIG_IGN);
        rlimit small = saved;
        small.rlim_cur = 4096;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
        const Status status = writeSafeTensors(pathText, sampleFile(100000));
        ::setrlimit(RLIMIT_FSIZE, &saved);
        ::signal(SIGXFSZ, oldHandler);

        QVERIFY(!status.ok());
        QCOMPARE(errorText(status.error()), path + ": cannot write: File too large");
        QCOMPARE(readAll(path), before);
        QCOMPARE(entriesOf(folder.path()), QStringList{"w.safetensors"});
        QVERIFY(readSafeTensors(pathText).ok());
    }

    void unwritableFolderLeavesOldFile() {
        if (::geteuid() == 0) QSKIP("root ignores folder permissions (failedWriteLeavesOldFile covers the failure as root)");
        QTemporaryDir folder;
        const QString path = folder.filePath("w.safetensors");
        QVERIFY(writeSafeTensors(path.toStdString(), sampleFile(4)).ok());
        const QByteArray before = readAll(path);
        QVERIFY(::chmod(folder.path().toLocal8Bit().constData(), 0555) == 0);
        const Status status = writeSafeTensors(path.toStdString(), sampleFile(8));
        ::chmod(folder.path().toLocal8Bit().constData(), 0755);
        QVERIFY(!status.ok());
        QCOMPARE(errorText(status.error()), path + ": cannot create a temporary file in \"" + folder.path() + "\": Permission denied");
        QCOMPARE(readAll(path), before);
        QCOMPARE(entriesOf(folder.path()), QStringList{"w.safetensors"});
    }

    void typedReadsCheckShapeAndDtype() {
        const SafeTensorsFile file = sampleFile(4);
        const auto values = readF32Tensor(file, "dense_0/kernel", {4}, "w.safetensors");
        QVERIFY(values.ok());
        QCOMPARE(*values, (std::vector<float>{-3.0f, -2.5f, -2.0f, -1.5f}));
        QCOMPARE(errorText(readF32Tensor(file, "dense_0/kernel", {2, 2}, "w.safetensors").error()),
                 QString("w.safetensors: dense_0/kernel: shape [4] in the file, the model needs [2, 2]"));
        QCOMPARE(errorText(readF32Tensor(file, "step", {}, "w.safetensors").error()),
                 QString("w.safetensors: step: dtype I64 in the file, the model needs F32"));
        QCOMPARE(errorText(readF32Tensor(file, "nope", {1}, "w.safetensors").error()), QString("w.safetensors: missing tensor nope"));
        std::int64_t step = 0;
        QVERIFY(copySafeTensor<std::int64_t>(file, "step", {}, std::span(&step, 1), "w").ok());
        QCOMPARE(step, std::int64_t{42});
    }

    void checkTensorsMatchNamesFirstMismatch() {
        SafeTensorsFile file;
        const std::vector<float> kernel(128 * 10, 0.0f), bias(10, 0.0f), slot(10, 0.0f);
        file.tensors["dense_1/kernel"] = makeF32Tensor({128, 10}, kernel);
        file.tensors["dense_1/bias"] = makeF32Tensor({10}, bias);
        file.tensors["optimizer/dense_1/bias/m"] = makeF32Tensor({10}, slot);
        const std::string name = "weights.safetensors";

        const std::vector<ExpectedTensor> exact{{"dense_1/kernel", {128, 10}}, {"dense_1/bias", {10}}};
        QVERIFY(checkTensorsMatch(file, exact, name).ok());

        const std::vector<ExpectedTensor> wider{{"dense_1/kernel", {128, 12}}, {"dense_1/bias", {12}}};
        QCOMPARE(errorText(checkTensorsMatch(file, wider, name).error()),
                 QString("weights.safetensors: dense_1/kernel: shape [128, 10] in the file, the model needs [128, 12]"));

        const std::vector<ExpectedTensor> more{{"dense_1/kernel", {128, 10}}, {"dense_1/bias", {10}}, {"dense_2/bias", {3}}};
        QCOMPARE(errorText(checkTensorsMatch(file, more, name).error()), QString("weights.safetensors: missing tensor dense_2/bias"));

        const std::vector<ExpectedTensor> fewer{{"dense_1/kernel", {128, 10}}};
        QCOMPARE(errorText(checkTensorsMatch(file, fewer, name).error()), QString("weights.safetensors: unexpected tensor dense_1/bias"));

        QCOMPARE(errorText(checkTensorsMatch(file, exact, name, "").error()),
                 QString("weights.safetensors: unexpected tensor optimizer/dense_1/bias/m"));

        file.tensors["foo"] = SafeTensor{SafeDType::U8, {1}, rawBytes({7})};
        QCOMPARE(errorText(checkTensorsMatch(file, exact, name).error()), QString("weights.safetensors: unexpected tensor foo"));
    }

    void fuzzPrefixesAndCorruptions() {
        const auto valid = serializeSafeTensors(sampleFile(6));
        QVERIFY(valid.ok());
        const std::vector<std::byte>& bytes = *valid;
        QVERIFY(parseSafeTensors(bytes, "fuzz").ok());
        // Every strict prefix is missing something, so every one must be rejected (and not crash).
        for (std::size_t length = 0; length < bytes.size(); ++length) {
            const auto parsed = parseSafeTensors(std::span(bytes.data(), length), "fuzz");
            QVERIFY2(!parsed.ok(), qPrintable(QString("prefix of %1 bytes was accepted").arg(length)));
            QVERIFY(parsed.error().message.starts_with("fuzz: "));
        }
        // Random single-byte corruptions: any outcome but a crash (or a non-file-named error) is fine.
        std::mt19937 random(12345);
        std::uniform_int_distribution<std::size_t> position(0, bytes.size() - 1);
        std::uniform_int_distribution<int> value(0, 255);
        int rejected = 0;
        for (int trial = 0; trial < 600; ++trial) {
            std::vector<std::byte> corrupted = bytes;
            const std::size_t at = trial < 8 ? static_cast<std::size_t>(trial) : position(random);
            corrupted[at] = static_cast<std::byte>(value(random));
            const auto parsed = parseSafeTensors(corrupted, "fuzz");
            if (!parsed.ok()) {
                ++rejected;
                QVERIFY(parsed.error().message.starts_with("fuzz: "));
            } else {
                QVERIFY(serializeSafeTensors(*parsed).ok());
            }
        }
        QVERIFY(rejected > 100);
    }
};

QTEST_APPLESS_MAIN(TestSafeTensors)
#include "test_safetensors.moc"
