// Tests for the data module: every source of loadData() and its error messages (BatchSampler and
// gatherBatch: test_batches.cpp).
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "data/data_sources.hpp"
#include "distlab/data/dataset.hpp"

using namespace distlab;

namespace {

std::string errorOf(const Result<DataSplit>& result) { return result.ok() ? "<no error>" : result.error().message; }

QString qs(const std::string& text) { return QString::fromStdString(text); }

DataConfig synthetic(SyntheticKind kind, std::int64_t samples, double noise, double trainFraction) {
    DataConfig config;
    config.source = DataSource::Synthetic;
    config.kind = kind;
    config.samples = samples;
    config.noise = noise;
    config.trainFraction = trainFraction;
    return config;
}

DataConfig csv(const std::string& path, const std::string& testPath = {}, std::int64_t labelColumn = -1) {
    DataConfig config;
    config.source = DataSource::Csv;
    config.path = path;
    config.testPath = testPath;
    config.labelColumn = labelColumn;
    return config;
}

DataConfig idx(const std::string& images, const std::string& labels) {
    DataConfig config;
    config.source = DataSource::Idx;
    config.images = images;
    config.labels = labels;
    return config;
}

/// An IDX file of unsigned bytes: 00 00 08 ndims, big-endian sizes, data.
std::string idxBytes(const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& data) {
    std::string bytes{'\0', '\0', '\x08', static_cast<char>(dims.size())};
    for (const std::uint32_t d : dims) {
        for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<char>((d >> shift) & 0xff));
    }
    bytes.append(data.begin(), data.end());
    return bytes;
}

std::string gzipBytes(const std::string& plain) {
    // zlib's own gzip writer, through a scratch file, so the test checks against real .gz files.
    const std::string path = std::filesystem::temp_directory_path() / "distlab_test_data_gzip.tmp";
    gzFile file = gzopen(path.c_str(), "wb");
    gzwrite(file, plain.data(), static_cast<unsigned>(plain.size()));
    gzclose(file);
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(path);
    return bytes;
}

constexpr std::uint8_t kPixels[12] = {0, 255, 51, 102, 1, 2, 3, 4, 10, 20, 30, 40};

}  // namespace

class TestData : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    void write(const std::string& name, const std::string& bytes) {
        std::ofstream out(std::filesystem::path(m_dir.path().toStdString()) / name, std::ios::binary);
        out << bytes;
    }
    Result<DataSplit> load(const DataConfig& config, DataExpectations expect, std::uint64_t seed = 42) {
        return loadData(config, expect, seed, m_dir.path().toStdString());
    }
    void writeImagesAndLabels(const std::string& images, const std::string& labels, bool gzip) {
        const std::string imageBytes = idxBytes({3, 2, 2}, {std::begin(kPixels), std::end(kPixels)});
        const std::string labelBytes = idxBytes({3}, {7, 0, 9});
        write(images, gzip ? gzipBytes(imageBytes) : imageBytes);
        write(labels, gzip ? gzipBytes(labelBytes) : labelBytes);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // ---- synthetic ----
    void syntheticShapes_data() {
        QTest::addColumn<int>("kind");
        QTest::newRow("circle") << static_cast<int>(SyntheticKind::Circle);
        QTest::newRow("xor") << static_cast<int>(SyntheticKind::Xor);
        QTest::newRow("gauss") << static_cast<int>(SyntheticKind::Gauss);
        QTest::newRow("spiral") << static_cast<int>(SyntheticKind::Spiral);
        QTest::newRow("regression_plane") << static_cast<int>(SyntheticKind::RegressionPlane);
        QTest::newRow("regression_gauss") << static_cast<int>(SyntheticKind::RegressionGauss);
    }
    void syntheticShapes() {
        QFETCH(int, kind);
        const auto config = synthetic(static_cast<SyntheticKind>(kind), 201, 0.3, 0.7);
        const bool regression = kind >= static_cast<int>(SyntheticKind::RegressionPlane);
        const DataExpectations expect = regression ? DataExpectations{0, 1} : DataExpectations{2, 0};
        const auto result = load(config, expect);
        QVERIFY2(result.ok(), errorOf(result).c_str());
        const DataSplit& split = *result;
        QCOMPARE(split.train.count, std::int64_t{140});  // floor(201 * 0.7)
        QCOMPARE(split.test.count, std::int64_t{61});
        int positives = 0;
        for (const Dataset* part : {&split.train, &split.test}) {
            QCOMPARE(part->features, std::int64_t{2});
            QCOMPARE(part->x.size(), static_cast<std::size_t>(part->count * 2));
            QCOMPARE(part->classes, std::int64_t{regression ? 0 : 2});
            QCOMPARE(part->outputs, std::int64_t{regression ? 1 : 0});
            QCOMPARE(part->labels.size(), static_cast<std::size_t>(regression ? 0 : part->count));
            QCOMPARE(part->targets.size(), static_cast<std::size_t>(regression ? part->count : 0));
            for (const float v : part->x) QVERIFY(std::isfinite(v) && std::abs(v) < 20.0f);
            // The Playground's plane maps x + y in [-10, 10] to [-1, 1] unclamped; |x|, |y| <= 6 (+ 30% noise).
            const float limit = kind == static_cast<int>(SyntheticKind::RegressionPlane) ? 1.56f : 1.0f;
            for (const float t : part->targets) QVERIFY(t >= -limit && t <= limit);
            for (const auto label : part->labels) {
                QVERIFY(label == 0 || label == 1);
                positives += label;
            }
        }
        // circle, gauss and spiral generate ceil(n/2) positives; noise may flip circle labels.
        if (kind == static_cast<int>(SyntheticKind::Gauss) || kind == static_cast<int>(SyntheticKind::Spiral)) {
            QCOMPARE(positives, 101);
        }
        if (!regression) QVERIFY(positives > 40 && positives < 160);
    }
    void syntheticIsDeterministic() {
        const auto config = synthetic(SyntheticKind::Spiral, 100, 0.5, 0.5);
        const auto a = load(config, {2, 0}, 5);
        const auto b = load(config, {2, 0}, 5);
        const auto c = load(config, {2, 0}, 6);
        QVERIFY(a.ok() && b.ok() && c.ok());
        QCOMPARE(a->train.x, b->train.x);
        QCOMPARE(a->train.labels, b->train.labels);
        QCOMPARE(a->test.x, b->test.x);
        QVERIFY(a->train.x != c->train.x);
    }
    void syntheticNoiselessLabelsFollowTheFormulas() {
        const auto circle = load(synthetic(SyntheticKind::Circle, 300, 0.0, 1.0), {2, 0});
        QVERIFY(circle.ok());
        QCOMPARE(circle->test.count, std::int64_t{0});
        for (std::int64_t i = 0; i < circle->train.count; ++i) {
            const float r = std::hypot(circle->train.x[2 * i], circle->train.x[2 * i + 1]);
            QCOMPARE(circle->train.labels[i], r < 3.0f ? 1 : 0);  // the classes are 2.5 <= r < 3.5 apart
            QVERIFY(r < 2.5f || (r >= 3.5f - 1e-4f && r <= 5.0f + 1e-4f));
        }
        const auto xorSet = load(synthetic(SyntheticKind::Xor, 300, 0.0, 1.0), {2, 0});
        QVERIFY(xorSet.ok());
        for (std::int64_t i = 0; i < xorSet->train.count; ++i) {
            const float x = xorSet->train.x[2 * i], y = xorSet->train.x[2 * i + 1];
            QVERIFY(std::abs(x) >= 0.3f && std::abs(y) >= 0.3f);
            QCOMPARE(xorSet->train.labels[i], x * y >= 0 ? 1 : 0);
        }
        const auto plane = load(synthetic(SyntheticKind::RegressionPlane, 300, 0.0, 1.0), {0, 1});
        QVERIFY(plane.ok());
        for (std::int64_t i = 0; i < plane->train.count; ++i) {
            const float x = plane->train.x[2 * i], y = plane->train.x[2 * i + 1];
            QVERIFY(std::abs(x) <= 6.0f && std::abs(y) <= 6.0f);
            QVERIFY(std::abs(plane->train.targets[i] - (x + y) / 10.0f) < 1e-5f);
        }
    }
    void syntheticOddCountAndWiderModel() {
        const auto result = load(synthetic(SyntheticKind::Gauss, 7, 0.0, 1.0), {3, 0});
        QVERIFY(result.ok());
        QCOMPARE(result->train.count, std::int64_t{7});
        QCOMPARE(result->train.classes, std::int64_t{3});  // the model's label space
        QCOMPARE(std::count(result->train.labels.begin(), result->train.labels.end(), 1), std::ptrdiff_t{4});
    }
    void syntheticErrors_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<qint64>("samples");
        QTest::addColumn<double>("noise");
        QTest::addColumn<double>("fraction");
        QTest::addColumn<qint64>("classes");
        QTest::addColumn<qint64>("outputs");
        QTest::addColumn<QString>("message");
        const int circle = static_cast<int>(SyntheticKind::Circle);
        const int plane = static_cast<int>(SyntheticKind::RegressionPlane);
        QTest::newRow("circle with mse")
            << circle << qint64{100} << 0.0 << 0.5 << qint64{0} << qint64{1}
            << "data.kind: circle is a classification set; use loss softmax_cross_entropy or a regression_* kind";
        QTest::newRow("plane with classes")
            << plane << qint64{100} << 0.0 << 0.5 << qint64{2} << qint64{0}
            << "data.kind: regression_plane is a regression set (1 float target per sample); use loss mse with a last "
               "layer of 1 unit, or a classification kind (circle, xor, gauss, spiral)";
        QTest::newRow("plane with 2 outputs")
            << plane << qint64{100} << 0.0 << 0.5 << qint64{0} << qint64{2}
            << "data.kind: regression_plane has 1 target per sample but the model predicts 2 outputs; give the last layer 1 unit";
        QTest::newRow("one class")
            << circle << qint64{100} << 0.0 << 0.5 << qint64{1} << qint64{0}
            << "data.kind: circle has 2 classes (labels 0 and 1) but the model predicts 1 class; give the last layer at least 2 units";
        QTest::newRow("no samples") << circle << qint64{0} << 0.0 << 0.5 << qint64{2} << qint64{0}
                                    << "data.samples: must be in [1, 50000000] (got 0)";
        QTest::newRow("noise") << circle << qint64{10} << 1.5 << 0.5 << qint64{2} << qint64{0}
                               << "data.noise: must be in [0, 1] (got 1.500000)";
        QTest::newRow("fraction 0") << circle << qint64{10} << 0.0 << 0.0 << qint64{2} << qint64{0}
                                    << "data.train_fraction: must be in (0, 1] (got 0.000000)";
        QTest::newRow("fraction tiny") << circle << qint64{10} << 0.0 << 0.05 << qint64{2} << qint64{0}
                                       << "data.train_fraction: 0.050000 of 10 samples leaves no training sample";
    }
    void syntheticErrors() {
        QFETCH(int, kind);
        QFETCH(qint64, samples);
        QFETCH(double, noise);
        QFETCH(double, fraction);
        QFETCH(qint64, classes);
        QFETCH(qint64, outputs);
        QFETCH(QString, message);
        QCOMPARE(qs(errorOf(load(synthetic(static_cast<SyntheticKind>(kind), samples, noise, fraction), {classes, outputs}))), message);
    }

    // ---- random ----
    void randomClassification() {
        DataConfig config;
        config.source = DataSource::Random;
        config.features = 7;
        config.classes = 4;
        config.samples = 2000;
        const auto a = load(config, {4, 0}, 3);
        const auto b = load(config, {4, 0}, 3);
        QVERIFY2(a.ok(), errorOf(a).c_str());
        QCOMPARE(a->train.count, std::int64_t{2000});
        QCOMPARE(a->train.features, std::int64_t{7});
        QCOMPARE(a->train.x.size(), std::size_t{14000});
        QCOMPARE(a->test.count, std::int64_t{0});
        QCOMPARE(a->test.features, std::int64_t{7});
        QCOMPARE(a->train.x, b->train.x);
        QCOMPARE(a->train.labels, b->train.labels);
        std::set<std::int32_t> seen(a->train.labels.begin(), a->train.labels.end());
        QCOMPARE(seen, (std::set<std::int32_t>{0, 1, 2, 3}));
        double sum = 0, squares = 0;
        for (const float v : a->train.x) sum += v, squares += double{v} * v;
        QVERIFY(std::abs(sum / 14000) < 0.05);
        QVERIFY(std::abs(squares / 14000 - 1.0) < 0.1);
    }
    void randomRegressionAndMismatches() {
        DataConfig config;
        config.source = DataSource::Random;
        config.features = 3;
        config.outputs = 2;
        config.samples = 10;
        const auto result = load(config, {0, 2});
        QVERIFY2(result.ok(), errorOf(result).c_str());
        QCOMPARE(result->train.outputs, std::int64_t{2});
        QCOMPARE(result->train.targets.size(), std::size_t{20});
        QVERIFY(result->train.labels.empty());
        QCOMPARE(qs(errorOf(load(config, {5, 0}))),
                 QString("data.outputs: is 2 (regression targets) but the model's loss is softmax_cross_entropy; set it to 0"));
        QCOMPARE(qs(errorOf(load(config, {0, 1}))),
                 QString("data.outputs: is 2 but the model (loss mse) predicts 1 outputs per sample; set it to 1"));
        config.outputs = 0;
        config.classes = 10;
        QCOMPARE(qs(errorOf(load(config, {5, 0}))), QString("data.classes: 10 classes, but the model predicts only 5"));
        config.features = 0;
        QCOMPARE(qs(errorOf(load(config, {10, 0}))), QString("data.features: must be in [1, 1073741824] (got 0)"));
    }

    // ---- csv ----
    void csvHeaderCrlfAndBlankLines() {
        write("h.csv",
              "\xEF\xBB\xBF"
              "a, b ,label\r\n1,2,0\r\n3.5 , -4e1,+2\r\n\r\n  \r\n");
        const auto result = load(csv("h.csv"), {3, 0});
        QVERIFY2(result.ok(), errorOf(result).c_str());
        QCOMPARE(result->train.count, std::int64_t{2});
        QCOMPARE(result->train.features, std::int64_t{2});
        QCOMPARE(result->train.classes, std::int64_t{3});
        QCOMPARE(result->train.x, (std::vector<float>{1, 2, 3.5f, -40}));
        QCOMPARE(result->train.labels, (std::vector<std::int32_t>{0, 2}));
        QVERIFY(result->test.empty());
        QCOMPARE(result->test.features, std::int64_t{2});
    }
    // Old Mac files end lines in a lone CR: they were one long line ("no data rows").
    void csvCrOnlyLineEnds() {
        write("cr.csv", "a,b,label\r1,2,0\r3,4,1\r\r");
        const auto result = load(csv("cr.csv"), {2, 0});
        QVERIFY2(result.ok(), errorOf(result).c_str());
        QCOMPARE(result->train.count, std::int64_t{2});
        QCOMPARE(result->train.x, (std::vector<float>{1, 2, 3, 4}));
        write("mixed.csv", "1,2,0\r\n3,4,1\r5,6,0\n");
        const auto mixed = load(csv("mixed.csv"), {2, 0});
        QVERIFY2(mixed.ok(), errorOf(mixed).c_str());
        QCOMPARE(mixed->train.count, std::int64_t{3});
    }

    void csvLabelColumnTestFileAndAbsolutePath() {
        write("l.csv", "1,0.5,0.25\n0,1.5,2.25\n");  // no header, label first, no trailing newline below
        write("lt.csv", "label,x,y\n1,9,8");
        const std::string absolute = m_dir.filePath("lt.csv").toStdString();
        for (const std::int64_t column : {std::int64_t{0}, std::int64_t{-3}}) {
            const auto result = load(csv("l.csv", absolute, column), {2, 0});
            QVERIFY2(result.ok(), errorOf(result).c_str());
            QCOMPARE(result->train.x, (std::vector<float>{0.5f, 0.25f, 1.5f, 2.25f}));
            QCOMPARE(result->train.labels, (std::vector<std::int32_t>{1, 0}));
            QCOMPARE(result->test.count, std::int64_t{1});
            QCOMPARE(result->test.x, (std::vector<float>{9, 8}));
            QCOMPARE(result->test.labels, (std::vector<std::int32_t>{1}));
        }
        QCOMPARE(qs(errorOf(load(csv("l.csv", {}, 3), {2, 0}))),
                 QString("data.label_column: 3 is out of range for the 3 columns of l.csv (line 1)"));
        QCOMPARE(qs(errorOf(load(csv("l.csv", {}, -4), {2, 0}))),
                 QString("data.label_column: -4 is out of range for the 3 columns of l.csv (line 1)"));
        write("wide.csv", "1,2,3,0\n");
        QCOMPARE(qs(errorOf(load(csv("l.csv", "wide.csv", 0), {2, 0}))), QString("wide.csv: line 1: 4 columns, but l.csv has 3"));
    }
    void csvRegressionAndInferredClasses() {
        write("r.csv", "x,y\n1,0.25\n2,-1.5\n");
        const auto regression = load(csv("r.csv"), {0, 1});
        QVERIFY2(regression.ok(), errorOf(regression).c_str());
        QCOMPARE(regression->train.outputs, std::int64_t{1});
        QCOMPARE(regression->train.classes, std::int64_t{0});
        QCOMPARE(regression->train.targets, (std::vector<float>{0.25f, -1.5f}));
        QCOMPARE(qs(errorOf(load(csv("r.csv"), {0, 2}))),
                 QString("data.source: a CSV file has one label column, but the model predicts 2 outputs per sample; "
                         "give the last layer 1 unit"));
        write("i.csv", "1,4\n2,1\n");
        const auto inferred = load(csv("i.csv"), {0, 0});
        QVERIFY(inferred.ok());
        QCOMPARE(inferred->train.classes, std::int64_t{5});
    }
    void csvErrors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing field") << QByteArray("1,2,0\n1,2\n") << "e.csv: line 2, column 3: missing field (2 fields, expected 3)";
        QTest::newRow("extra field") << QByteArray("a,b,c\n1,2,0,4\n") << "e.csv: line 2, column 4: extra field (4 fields, expected 3)";
        QTest::newRow("word") << QByteArray("1,2,0\r\n1,abc,0\r\n") << "e.csv: line 2, column 2: \"abc\" is not a number";
        QTest::newRow("late header") << QByteArray("1,2,0\nx,y,z\n") << "e.csv: line 2, column 1: \"x\" is not a number";
        QTest::newRow("nan") << QByteArray("1,nan,0\n") << "e.csv: line 1, column 2: \"nan\" is not a finite number";
        QTest::newRow("inf") << QByteArray("x,y,l\n\n-inf,1,0\n") << "e.csv: line 3, column 1: \"-inf\" is not a finite number";
        QTest::newRow("huge") << QByteArray("1e39,1,0\n") << "e.csv: line 1, column 1: \"1e39\" is out of the range of a float";
        QTest::newRow("fraction label") << QByteArray("1,2,0.5\n") << "e.csv: line 1, column 3: label \"0.5\" is not an integer";
        QTest::newRow("label too big") << QByteArray("1,2,0\n1,2,3\n")
                                       << "e.csv: line 2, column 3: label \"3\" is out of range [0, 3) (the model predicts 3 classes)";
        QTest::newRow("negative label") << QByteArray("1,2,-1\n")
                                        << "e.csv: line 1, column 3: label \"-1\" is out of range [0, 3) (the model predicts 3 classes)";
        QTest::newRow("control character") << QByteArray("1,2,0\n1,2\x01,0\n") << "e.csv: line 2, column 2: \"2\\x01\" is not a number";
        QTest::newRow("empty field") << QByteArray("1,,0\n") << "e.csv: line 1, column 2: empty field";
        QTest::newRow("trailing comma") << QByteArray("1,2,\n") << "e.csv: line 1, column 3: empty field";
        QTest::newRow("empty file") << QByteArray("") << "e.csv: the file is empty";
        QTest::newRow("blank file") << QByteArray("\r\n \n\n") << "e.csv: the file is empty";
        QTest::newRow("header only") << QByteArray("a,b,c\n") << "e.csv: no data rows (only a header on line 1)";
        QTest::newRow("one column") << QByteArray("1\n2\n") << "e.csv: line 1: 1 column; need at least 2 (features and a label)";
    }
    void csvErrors() {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        write("e.csv", content.toStdString());
        QCOMPARE(qs(errorOf(load(csv("e.csv"), {3, 0}))), message);
    }
    void csvMissingFile() {
        QCOMPARE(qs(errorOf(load(csv(""), {2, 0}))), QString("data.path: required for source csv"));
        const QString message = qs(errorOf(load(csv("missing.csv"), {2, 0})));
        QVERIFY2(message.startsWith("data.path: cannot read \"missing.csv\" (") && message.endsWith("): No such file or directory"),
                 qPrintable(message));
        write("ok.csv", "1,0\n");
        QVERIFY(qs(errorOf(load(csv("ok.csv", "gone.csv"), {2, 0}))).startsWith("data.test_path: cannot read \"gone.csv\""));
    }

    // ---- idx ----
    void idxPlainAndGzip() {
        writeImagesAndLabels("img.idx", "lab.idx", false);
        writeImagesAndLabels("img.idx.gz", "lab.idx.gz", true);
        writeImagesAndLabels("img-nosuffix", "lab-nosuffix", true);  // gzip found by its magic
        for (const auto& [images, labels] : std::vector<std::pair<std::string, std::string>>{
                 {"img.idx", "lab.idx"}, {"img.idx.gz", "lab.idx.gz"}, {"img-nosuffix", "lab-nosuffix"}}) {
            auto config = idx(images, labels);
            config.testImages = images;
            config.testLabels = labels;
            const auto result = load(config, {10, 0});
            QVERIFY2(result.ok(), errorOf(result).c_str());
            for (const Dataset* part : {&result->train, &result->test}) {
                QCOMPARE(part->count, std::int64_t{3});
                QCOMPARE(part->features, std::int64_t{4});
                QCOMPARE(part->classes, std::int64_t{10});
                QCOMPARE(part->labels, (std::vector<std::int32_t>{7, 0, 9}));
                QCOMPARE(part->x.size(), std::size_t{12});
                for (int i = 0; i < 12; ++i) QCOMPARE(part->x[static_cast<std::size_t>(i)], kPixels[i] / 255.0f);
            }
            QCOMPARE(result->train.x[1], 1.0f);
            QCOMPARE(result->train.x[2], 0.2f);
        }
        const auto inferred = load(idx("img.idx", "lab.idx"), {0, 0});
        QVERIFY(inferred.ok());
        QCOMPARE(inferred->train.classes, std::int64_t{10});
        QVERIFY(inferred->test.empty());
    }
    void idxErrors_data() {
        QTest::addColumn<QByteArray>("images");
        QTest::addColumn<QByteArray>("labels");
        QTest::addColumn<QString>("message");
        const std::string goodImages = idxBytes({3, 2, 2}, {std::begin(kPixels), std::end(kPixels)});
        const std::string goodLabels = idxBytes({3}, {1, 2, 3});
        auto bytes = [](const std::string& s) { return QByteArray(s.data(), static_cast<qsizetype>(s.size())); };
        std::string badMagic = goodImages;
        badMagic[0] = 1;
        badMagic[1] = 2;
        QTest::newRow("magic")
            << bytes(badMagic) << bytes(goodLabels)
            << "x.idx: byte offset 0: wrong magic 0x01 0x02 (an IDX file starts with 0x00 0x00, a type code and a dimension count)";
        std::string floats = goodImages;
        floats[2] = 0x0d;
        QTest::newRow("type") << bytes(floats) << bytes(goodLabels)
                              << "x.idx: byte offset 2: unsupported type code 0x0d (float32); only 0x08 (unsigned byte) is supported";
        QTest::newRow("1-d images") << bytes(goodLabels) << bytes(goodLabels) << "x.idx: byte offset 3: 1 dimensions; expected at least 2";
        QTest::newRow("2-d labels") << bytes(goodImages) << bytes(goodImages) << "y.idx: byte offset 3: 3 dimensions; expected 1";
        QTest::newRow("short header") << QByteArray("\0\0", 2) << bytes(goodLabels)
                                      << "x.idx: truncated: the 4-byte IDX header ends at byte offset 2";
        QTest::newRow("short sizes") << bytes(goodImages.substr(0, 10)) << bytes(goodLabels)
                                     << "x.idx: truncated: the dimension sizes end at byte offset 10 (expected 16 header bytes)";
        QTest::newRow("short data")
            << bytes(goodImages.substr(0, 20)) << bytes(goodLabels)
            << "x.idx: truncated: the header announces 12 bytes of data after byte offset 16, but the file ends at byte offset 20";
        QTest::newRow("huge dims")
            << bytes(idxBytes({0xffffffffu, 0xffffffffu, 0xffffffffu}, {1, 2})) << bytes(goodLabels)
            << "x.idx: truncated: the header announces 18446744073709551615 bytes of data after byte offset 16, but the "
               "file ends at byte offset 18";
        QTest::newRow("trailing") << bytes(goodImages + "z") << bytes(goodLabels)
                                  << "x.idx: byte offset 28: more data than the header announces";
        QTest::newRow("count mismatch") << bytes(goodImages) << bytes(idxBytes({2}, {1, 2}))
                                        << "y.idx: holds 2 labels but x.idx holds 3 images (counts at byte offset 4)";
        QTest::newRow("no images") << bytes(idxBytes({0, 2, 2}, {})) << bytes(idxBytes({0}, {})) << "x.idx: byte offset 4: holds no images";
        QTest::newRow("zero dim") << bytes(idxBytes({3, 0, 2}, {})) << bytes(goodLabels) << "x.idx: byte offset 8: dimension 1 is 0";
        QTest::newRow("label range") << bytes(goodImages) << bytes(idxBytes({3}, {1, 10, 3}))
                                     << "y.idx: byte offset 9: label 10 is out of range [0, 10) (the model predicts 10 classes)";
        const std::string gz = gzipBytes(goodImages);
        std::string badCrc = gz;
        badCrc[badCrc.size() - 6] = static_cast<char>(badCrc[badCrc.size() - 6] ^ 0x55);  // inside the CRC-32 trailer
        QTest::newRow("gzip crc")
            << bytes(badCrc) << bytes(goodLabels)
            << QString("x.idx: corrupt gzip data near compressed byte offset %1: incorrect data check").arg(gz.size() - 4);
        QTest::newRow("gzip truncated")
            << bytes(gz.substr(0, gz.size() - 10)) << bytes(goodLabels)
            << QString("x.idx: the gzip stream ends early at compressed byte offset %1 (the file is truncated)").arg(gz.size() - 10);
        QTest::newRow("gzip method") << QByteArray("\x1f\x8b\x07\x00garbage-garbage", 19) << bytes(goodLabels)
                                     << "x.idx: corrupt gzip data near compressed byte offset 4: unknown compression method";
        QTest::newRow("gzip short header") << bytes(gzipBytes(goodImages.substr(0, 3))) << bytes(goodLabels)
                                           << "x.idx (after gunzip): truncated: the 4-byte IDX header ends at byte offset 3";
    }
    void idxErrors() {
        QFETCH(QByteArray, images);
        QFETCH(QByteArray, labels);
        QFETCH(QString, message);
        write("x.idx", images.toStdString());
        write("y.idx", labels.toStdString());
        QCOMPARE(qs(errorOf(load(idx("x.idx", "y.idx"), {10, 0}))), message);
    }
    void idxCorruptGzipNeverCrashes() {
        // Flipping any one byte of the compressed stream must give an error (the CRC catches the
        // rest), never a crash or a wrong data set.
        const std::string gz = gzipBytes(idxBytes({3, 2, 2}, {std::begin(kPixels), std::end(kPixels)}));
        write("y.idx", idxBytes({3}, {1, 2, 3}));
        for (std::size_t i = 10; i < gz.size(); ++i) {
            std::string corrupt = gz;
            corrupt[i] = static_cast<char>(corrupt[i] ^ 0xff);
            write("x.idx", corrupt);
            const QString message = qs(errorOf(load(idx("x.idx", "y.idx"), {10, 0})));
            QVERIFY2(message.startsWith("x.idx"), qPrintable(QString("byte %1: %2").arg(i).arg(message)));
        }
    }
    void idxConfigErrors() {
        writeImagesAndLabels("img.idx", "lab.idx", false);
        QCOMPARE(qs(errorOf(load(idx("img.idx", "lab.idx"), {0, 1}))),
                 QString("data.source: idx data holds class labels; use loss softmax_cross_entropy (mse needs csv, "
                         "random or a regression_* synthetic kind)"));
        QCOMPARE(qs(errorOf(load(idx("", "lab.idx"), {10, 0}))), QString("data.images: required for source idx"));
        QCOMPARE(qs(errorOf(load(idx("img.idx", ""), {10, 0}))), QString("data.labels: required for source idx"));
        auto config = idx("img.idx", "lab.idx");
        config.testImages = "img.idx";
        QCOMPARE(qs(errorOf(load(config, {10, 0}))), QString("data.test_labels: required when data.test_images is set"));
        QVERIFY(qs(errorOf(load(idx("nope.idx", "lab.idx"), {10, 0}))).startsWith("data.images: cannot read \"nope.idx\""));
        QVERIFY(qs(errorOf(load(idx("img.idx", "nope.idx"), {10, 0}))).startsWith("data.labels: cannot read \"nope.idx\""));
        write("wide.idx", idxBytes({1, 1, 3}, {1, 2, 3}));
        write("one.idx", idxBytes({1}, {0}));
        config.testImages = "wide.idx";
        config.testLabels = "one.idx";
        QCOMPARE(qs(errorOf(load(config, {10, 0}))), QString("wide.idx: images of 3 values, but img.idx has images of 4"));
    }

    // ---- fashion_mnist ----
    void fashionMnist() {
        if (!std::filesystem::exists(std::string(data::kFashionMnistDirectory) + "/train-images-idx3-ubyte.gz")) {
            QSKIP("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)");
        }
        DataConfig config;
        config.source = DataSource::FashionMnist;
        QElapsedTimer timer;
        timer.start();
        const auto result = load(config, {10, 0});
        const qint64 elapsedMs = timer.elapsed();
        qInfo("Fashion-MNIST loaded in %lld ms", static_cast<long long>(elapsedMs));
        QVERIFY2(result.ok(), errorOf(result).c_str());
        QVERIFY(elapsedMs < 10000);  // ~0.5 s in Release; generous for busy or sanitizer builds
        QCOMPARE(result->train.count, std::int64_t{60000});
        QCOMPARE(result->test.count, std::int64_t{10000});
        QCOMPARE(result->train.features, std::int64_t{784});
        QCOMPARE(result->test.features, std::int64_t{784});
        QCOMPARE(result->train.classes, std::int64_t{10});
        QCOMPARE(std::vector<std::int32_t>(result->train.labels.begin(), result->train.labels.begin() + 10),
                 (std::vector<std::int32_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
        QCOMPARE(std::vector<std::int32_t>(result->test.labels.begin(), result->test.labels.begin() + 10),
                 (std::vector<std::int32_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}));
        double firstImage = 0;
        for (int i = 0; i < 784; ++i) firstImage += result->train.x[static_cast<std::size_t>(i)];
        QVERIFY(std::abs(firstImage - 76247.0 / 255.0) < 1e-3);
        QCOMPARE(*std::max_element(result->train.x.begin(), result->train.x.end()), 1.0f);
        QCOMPARE(qs(errorOf(load(config, {5, 0}))),
                 QString("data.source: fashion_mnist has 10 classes but the model predicts 5; give the last layer 10 units"));
    }
    void fashionMnistMissing() {
        const QString message = QString::fromStdString([&] {
            try {
                data::loadFashionMnist({10, 0}, m_dir.filePath("no-such-dir").toStdString());
                return std::string("<no error>");
            } catch (const InputError& e) {
                return std::string(e.what());
            }
        }());
        QVERIFY2(message.startsWith("data.source: fashion_mnist: ") &&
                     message.endsWith("train-images-idx3-ubyte.gz is missing; install Debian's dataset-fashion-mnist "
                                      "package (apt install dataset-fashion-mnist)"),
                 qPrintable(message));
        DataConfig config;
        config.source = DataSource::FashionMnist;
        QVERIFY(qs(errorOf(load(config, {0, 1}))).startsWith("data.source: fashion_mnist data holds class labels"));
    }
};

QTEST_APPLESS_MAIN(TestData)
#include "test_data.moc"
