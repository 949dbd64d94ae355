// Bad input of every kind is answered by exit code 2 and one "error:" line that names the file
// and the field, line or byte offset: never a crash, a hang or a half-written file.
#include <QtTest>

#include <QTemporaryDir>
#include <zlib.h>

#include "cli_runner.hpp"

namespace {

QByteArray littleEndian64(quint64 value) {
    QByteArray bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = char((value >> (8 * i)) & 0xff);
    return bytes;
}

QByteArray safetensors(const QByteArray& header, const QByteArray& data) { return littleEndian64(quint64(header.size())) + header + data; }

QByteArray bigEndian32(quint32 value) {
    QByteArray bytes(4, '\0');
    for (int i = 0; i < 4; ++i) bytes[i] = char((value >> (8 * (3 - i))) & 0xff);
    return bytes;
}

QByteArray idxImages(quint32 count, int rows, int cols) {
    QByteArray bytes = bigEndian32(0x00000803) + bigEndian32(count) + bigEndian32(quint32(rows)) + bigEndian32(quint32(cols));
    return bytes + QByteArray(int(count) * rows * cols, char(7));
}

QByteArray idxLabels(quint32 count, char label = 1) { return bigEndian32(0x00000801) + bigEndian32(count) + QByteArray(int(count), label); }

QByteArray gzipped(const QByteArray& data) {
    QByteArray out(int(compressBound(uLong(data.size()))) + 64, '\0');
    z_stream stream{};
    deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = uInt(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = uInt(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(int(stream.total_out));
    deflateEnd(&stream);
    return out;
}

// A config for a 2-feature, 2-class model (kernel [2, 2] and bias [2]) reading `dataJson`.
QByteArray configWithData(const QByteArray& dataJson) {
    return R"({"model": {"layers": [{"type": "dense", "units": 2}]}, "data": )" + dataJson + R"(, "steps": 2})";
}

}  // namespace

class TestCliBadInput : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }
    void write(const QString& name, const QByteArray& contents) {
        QFile file(path(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
    }
    // Runs the command; expects exit 2 and an error line naming `file` and matching `where`.
    void expectInputError(const QStringList& arguments, const QString& file, const QString& where) {
        const CliResult r = runCli(arguments, 30000);
        QVERIFY2(r.finished, "distlab-cli hung");
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1, stderr: %2").arg(r.exitCode).arg(r.err)));
        const QString line = r.err.trimmed();
        QVERIFY2(line.startsWith("error: "), qPrintable(line));
        QVERIFY2(!line.contains('\n'), qPrintable("more than one line: " + line));
        QVERIFY2(line.contains(file), qPrintable(QString("'%1' does not name %2").arg(line, file)));
        QVERIFY2(line.contains(QRegularExpression(where)), qPrintable(QString("'%1' does not match %2").arg(line, where)));
    }

private slots:
    void badConfigs_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("where");
        QTest::newRow("malformed") << QByteArray(R"({"model": {"layers": [}})") << "byte \\d+";
        QTest::newRow("truncated") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units")") << "byte \\d+";
        QTest::newRow("empty") << QByteArray("") << "byte \\d+";
        QTest::newRow("unknown key") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 2}]}, "optimiser": {}})")
                                     << "optimiser";
        QTest::newRow("nested unknown key") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 2, "unit": 3}]}})")
                                            << "model\\.layers\\[0\\]\\.unit";
        QTest::newRow("wrong type") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": "two"}]}})")
                                    << "model\\.layers\\[0\\]\\.units";
        QTest::newRow("zero units") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 0}]}})")
                                    << "model\\.layers\\[0\\]\\.units";
        QTest::newRow("no layers") << QByteArray(R"({"model": {"layers": []}})") << "model\\.layers";
        QTest::newRow("batch does not divide") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 2}]},
            "data": {"global_batch_size": 30}, "strategy": {"type": "mirrored", "replicas": 4}})")
                                               << "data\\.global_batch_size";
        QTest::newRow("negative learning rate") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 2}]},
            "optimizer": {"learning_rate": -1}})")
                                                << "optimizer\\.learning_rate";
        QTest::newRow("bad device") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 2}]},
            "strategy": {"type": "mirrored", "devices": ["tpu:0"]}})")
                                    << "strategy\\.devices";
        QTest::newRow("batch larger than data") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 2}]},
            "data": {"samples": 20, "global_batch_size": 64}})")
                                                << "global_batch_size";
        // Limits refused up front with the field's name (these ended in std::bad_alloc, or ran a minute for 20 steps).
        QTest::newRow("huge units") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 1000000000}]}})")
                                    << "model\\.layers\\[0\\]\\.units: must be an integer in \\[1, 1048576\\]";
        QTest::newRow("too many threads") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 2}]}, "threads": 100000})")
                                          << "threads: must be an integer in \\[0, 256\\]";
        QTest::newRow("too many parameters") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 1048576},
            {"type": "dense", "units": 1048576}, {"type": "dense", "units": 2}]}})")
                                             << "model\\.layers: the model has \\d+ parameters; one copy may have at most 268435456";
        QTest::newRow("more memory than the machine") << QByteArray(R"({"model": {"layers": [{"type": "dense", "units": 8192},
            {"type": "dense", "units": 8192}, {"type": "dense", "units": 2}]}, "data": {"samples": 2000, "global_batch_size": 1024},
            "strategy": {"type": "mirrored", "replicas": 1024}})")
                                                      << "model\\.layers: .* on 1024 model copies need at least .* GiB";
    }

    // Pausing every parameter-server worker hung forever: faults fire at an update count, which stops.
    void everyWorkerPausedStops() {
        QStringList arguments{"train", QStringLiteral(DISTLAB_EXAMPLES_DIR "/circle-parameter-server-4.json"), "--steps", "50", "--quiet"};
        for (int worker = 0; worker < 4; ++worker) arguments << "--fault" << QStringLiteral("pause-worker:%1@5").arg(worker);
        const CliResult r = runCli(arguments, 30000);
        QVERIFY2(r.finished, "distlab-cli hung");
        QCOMPARE(r.exitCode, 3);
        // Gradients already in flight at update 5 are still applied; then nothing can run.
        QVERIFY2(r.err.contains(QRegularExpression("^error: every worker is paused at update \\d+ and no resume-worker fault")),
                 qPrintable(r.err));
    }

    void badConfigs() {
        QFETCH(QByteArray, contents);
        QFETCH(QString, where);
        write("bad.json", contents);
        expectInputError({"validate", path("bad.json")}, "bad.json", where);
        expectInputError({"train", path("bad.json"), "--quiet"}, "bad.json", where);
    }

    void badCsv_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("where");
        QTest::newRow("ragged") << QByteArray("x,y,label\n1,2,0\n3,1\n") << "line 3";
        QTest::newRow("words") << QByteArray("1,2,0\n3,four,1\n") << "line 2.*column 2";
        QTest::newRow("nan") << QByteArray("1,2,0\nnan,1,1\n") << "line 2";
        QTest::newRow("label out of range") << QByteArray("1,2,0\n3,4,5\n") << "line 2";
        QTest::newRow("fractional label") << QByteArray("1,2,0\n3,4,0.5\n") << "line 2";
        QTest::newRow("nothing") << QByteArray("") << "empty|no data";
        QTest::newRow("header only") << QByteArray("x,y,label\n") << "no data|empty";
    }

    void badCsv() {
        QFETCH(QByteArray, contents);
        QFETCH(QString, where);
        write("data.csv", contents);
        write("csv.json", configWithData(R"({"source": "csv", "path": "data.csv", "global_batch_size": 1})"));
        expectInputError({"validate", path("csv.json")}, "data.csv", where);
    }

    void badIdx_data() {
        QTest::addColumn<QByteArray>("images");
        QTest::addColumn<QByteArray>("labels");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("where");
        QByteArray wrongMagic = idxImages(4, 1, 2);
        wrongMagic[2] = 0x09;
        QTest::newRow("wrong magic") << wrongMagic << idxLabels(4) << "images.idx"
                                     << "byte";
        QTest::newRow("truncated data") << idxImages(4, 1, 2).left(16 + 5) << idxLabels(4) << "images.idx"
                                        << "byte|truncated";
        QTest::newRow("mismatched counts") << idxImages(4, 1, 2) << idxLabels(3) << "labels.idx"
                                           << "3|4";
        QTest::newRow("label out of range") << idxImages(4, 1, 2) << idxLabels(4, 7) << "labels.idx"
                                            << "byte|label";
        QByteArray corrupt = gzipped(idxImages(4, 1, 2));
        corrupt[corrupt.size() / 2] = char(corrupt[corrupt.size() / 2] ^ 0x5a);
        QTest::newRow("corrupt gzip") << corrupt << idxLabels(4) << "images.idx"
                                      << "gzip|byte|corrupt";
        QTest::newRow("truncated gzip") << gzipped(idxImages(4, 1, 2)).left(20) << idxLabels(4) << "images.idx"
                                        << "gzip|byte|truncated";
    }

    void badIdx() {
        QFETCH(QByteArray, images);
        QFETCH(QByteArray, labels);
        QFETCH(QString, file);
        QFETCH(QString, where);
        write("images.idx", images);
        write("labels.idx", labels);
        write("idx.json", configWithData(R"({"source": "idx", "images": "images.idx", "labels": "labels.idx", "global_batch_size": 2})"));
        expectInputError({"validate", path("idx.json")}, file, where);
    }

    void badWeights_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("where");
        const QByteArray goodData(24, '\0');
        const QByteArray good = R"({"dense_0/bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                R"("dense_0/kernel":{"dtype":"F32","shape":[2,2],"data_offsets":[8,24]}})";
        QTest::newRow("shorter than 8 bytes") << QByteArray("abc") << "byte|8";
        QTest::newRow("header length past the file") << littleEndian64(1000) + good << "byte|header";
        QTest::newRow("huge header length") << littleEndian64(quint64(1) << 62) + good << "byte|header";
        QTest::newRow("offsets past the file") << safetensors(QByteArray(good).replace("[8,24]", "[8,48]"), goodData)
                                               << "dense_0/kernel|byte";
        QTest::newRow("overlapping") << safetensors(QByteArray(good).replace("[8,24]", "[4,20]"), goodData) << "overlap|dense_0";
        QTest::newRow("dtype disagrees with size")
            << safetensors(QByteArray(good).replace(R"("F32","shape":[2,2])", R"("F64","shape":[2,2])"), goodData) << "dense_0/kernel";
        QTest::newRow("shape disagrees with size") << safetensors(QByteArray(good).replace("[2,2]", "[3,2]"), goodData) << "dense_0/kernel";
        QTest::newRow("wrong shape for the model")
            << safetensors(QByteArray(good).replace("[2,2],\"data_offsets\":[8,24]", "[4,1],\"data_offsets\":[8,24]"), goodData)
            << "dense_0/kernel";
        QTest::newRow("missing tensor") << safetensors(R"({"dense_0/bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                                                       QByteArray(8, '\0'))
                                        << "dense_0/kernel";
        QTest::newRow("header not json") << safetensors("{not json at all}", QByteArray()) << "byte|header";
        // NaN weights used to read as divergence ("lower the learning rate"), not naming the file.
        QByteArray nanData = goodData;
        nanData.replace(12, 4, QByteArray::fromHex("0000c07f"));  // kernel element 1: a quiet NaN
        QTest::newRow("NaN weight") << safetensors(good, nanData) << "dense_0/kernel: element 1 is NaN; weights must be finite";
    }

    void badWeights() {
        QFETCH(QByteArray, contents);
        QFETCH(QString, where);
        write("w.safetensors", contents);
        write("model.json", configWithData(R"({"source": "synthetic", "kind": "xor", "samples": 40, "global_batch_size": 4})"));
        write("keep.safetensors", "previous contents");
        expectInputError(
            {"train", path("model.json"), "--init-weights", path("w.safetensors"), "--save-weights", path("keep.safetensors"), "--quiet"},
            "w.safetensors", where);
        // Nothing was written over the previous file.
        QFile keep(path("keep.safetensors"));
        QVERIFY(keep.open(QIODevice::ReadOnly));
        QCOMPARE(keep.readAll(), QByteArray("previous contents"));
        expectInputError({"train", path("model.json"), "--resume", path("w.safetensors"), "--quiet"}, "w.safetensors", ".");
    }

    void badVarlabScripts() {
        write("lab.json", R"({"strategy": "mirrored", "replicas": 2, "variables": [], "ops": [)");
        expectInputError({"varlab", path("lab.json")}, "lab.json", "byte");
        write("lab2.json", R"({"strategy": "mirrored", "replicas": 2, "variables": [{"name": "v"}],
            "ops": [{"context": "replica", "op": "assign", "var": "v", "values": [1, 2, 3]}]})");
        expectInputError({"varlab", path("lab2.json")}, "lab2.json", "values");
    }
};

QTEST_GUILESS_MAIN(TestCliBadInput)
#include "test_cli_bad_input.moc"
