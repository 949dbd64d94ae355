// Device discovery on a GPU machine (label gpu): every usable GPU reports plausible properties.
// Skips, with the reason from the report, where no GPU is usable.
#include "distlab/device/device_info.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace distlab;

class TestDevicesGpu : public QObject {
    Q_OBJECT

private slots:
    void reportsEveryGpu() {
        const DeviceReport report = queryDevices();
        if (report.gpus.empty()) QSKIP(("no usable GPU: " + report.gpuUnavailableReason).c_str());
        QVERIFY(report.cudaBuiltIn);
        QVERIFY(report.gpuUnavailableReason.empty());
        QVERIFY(report.cudaDriverVersion != "none");
        for (std::size_t i = 0; i < report.gpus.size(); ++i) {
            const GpuInfo& gpu = report.gpus[i];
            QCOMPARE(gpu.index, static_cast<int>(i));
            QVERIFY(!gpu.name.empty());
            QVERIFY(gpu.memoryBytes >= (std::uint64_t{1} << 30));                        // every GPU CUDA 13 supports has >= 1 GiB
            QVERIFY2(gpu.computeMajor * 10 + gpu.computeMinor >= 75, gpu.name.c_str());  // CUDA 13: sm_75+
            QVERIFY(gpu.multiprocessors >= 1);
        }
        const nlohmann::json json = nlohmann::json::parse(deviceReportToJson(report));
        QCOMPARE(json["gpus"].size(), report.gpus.size());
        QVERIFY(json["gpu_usable"].get<bool>());
        QCOMPARE(json["gpus"][0]["name"].get<std::string>(), report.gpus[0].name);
    }
};

QTEST_APPLESS_MAIN(TestDevicesGpu)
#include "test_devices_gpu.moc"
