// Every file distlab-cli reads or writes goes through one opener and one writer: a FIFO, a device,
// a huge file or a gzip bomb as input, and an output that is an input, another output, a device
// or in an unusable folder, are refused at once with exit 2 and one line naming the field and the
// path, and no file changes. Metrics and traces are replaced only by whole versions.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <QDir>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <zlib.h>

#include <functional>
#include <vector>

#include "cli_runner.hpp"

namespace {

std::string local(const QString& path) { return QFile::encodeName(path).toStdString(); }

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray bigEndian32(quint32 value) {
    QByteArray bytes(4, '\0');
    for (int i = 0; i < 4; ++i) bytes[i] = char((value >> (8 * (3 - i))) & 0xff);
    return bytes;
}

// The first 4 KiB of a file (the huge sparse inputs are never read whole).
QByteArray head(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.read(4096) : QByteArray();
}

// What a folder holds, one line per entry: its name and type; a file's size, inode, modification
// time and first bytes (a replaced file gets a new inode, a rewritten one a new time); where a link
// points. Two equal snapshots mean that nothing was created, removed or changed.
QStringList snapshot(const QString& folder) {
    QStringList lines;
    const auto entries = QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString& name : entries) {
        const QString path = folder + "/" + name;
        struct stat info {};
        if (::lstat(local(path).c_str(), &info) != 0) continue;
        QString line = name + " ";
        if (S_ISLNK(info.st_mode))
            line += "link " + QFile::symLinkTarget(path);
        else if (S_ISFIFO(info.st_mode))
            line += "fifo";
        else if (S_ISCHR(info.st_mode))
            line += "chr";
        else if (S_ISDIR(info.st_mode))
            line += "dir " + snapshot(path).join("|");
        else
            line += QStringLiteral("file %1 bytes, inode %2, modified %3.%4 ns: ")
                        .arg(info.st_size)
                        .arg(info.st_ino)
                        .arg(info.st_mtim.tv_sec)
                        .arg(info.st_mtim.tv_nsec) +
                    QString::fromLatin1(head(path).toHex());
        lines << line;
    }
    return lines;
}

constexpr const char* kModel =
    R"("model": {"layers": [{"type": "dense", "units": 4, "activation": "tanh"}, {"type": "dense", "units": 2}]})";

QByteArray config(const QByteArray& data) { return "{" + QByteArray(kModel) + R"(, "data": )" + data + R"(, "steps": 20})"; }

/// One folder of files for a case, and the helpers to make them.
class Scene {
public:
    Scene() {
        write("run.json", config(R"({"source": "synthetic", "kind": "xor", "samples": 64, "global_batch_size": 8})"));
        write("data.csv", "0,0,0\n0,1,1\n1,0,1\n1,1,0\n");
        write("csv.json", config(R"({"source": "csv", "path": "data.csv", "global_batch_size": 2})"));
        write("lab.json", R"({"strategy": "mirrored", "replicas": 2, "variables": [], "ops": []})");
        write("m.jsonl", "{\"step\":1}\n");
    }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString folder() const { return m_dir.path(); }
    void write(const QString& name, const QByteArray& contents) {
        QFile file(path(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
    }
    void fifo(const QString& name) { QVERIFY(::mkfifo(local(path(name)).c_str(), 0644) == 0); }
    /// A sparse file of `bytes` that starts with `head`: its size is all a size cap looks at.
    void sparse(const QString& name, qint64 bytes, const QByteArray& head = {}) {
        write(name, head);
        QVERIFY(::truncate(local(path(name)).c_str(), bytes) == 0);
    }
    /// IDX images: a header announcing count × 32 × 32 bytes and those bytes (zeros), gzipped:
    /// 300,000 images are 307 MB that compress to 1.3 MB (at the fastest level, in about 2 s).
    void idxGzip(const QString& name, quint32 count) {
        const QByteArray header = bigEndian32(0x00000803) + bigEndian32(count) + bigEndian32(32) + bigEndian32(32);
        z_stream stream{};
        QVERIFY(deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) == Z_OK);
        QByteArray out;
        QByteArray block(1 << 20, '\0');
        auto feed = [&](const QByteArray& in, int flush) {
            stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
            stream.avail_in = uInt(in.size());
            do {
                char buffer[1 << 16];
                stream.next_out = reinterpret_cast<Bytef*>(buffer);
                stream.avail_out = sizeof buffer;
                deflate(&stream, flush);
                out.append(buffer, int(sizeof buffer - stream.avail_out));
            } while (stream.avail_out == 0);
        };
        feed(header, Z_NO_FLUSH);
        for (qint64 left = qint64(count) * 32 * 32; left > 0; left -= block.size())
            feed(left >= block.size() ? block : block.left(int(left)), Z_NO_FLUSH);
        feed(QByteArray(), Z_FINISH);
        deflateEnd(&stream);
        write(name, out);
    }

private:
    QTemporaryDir m_dir;
};

/// A refused invocation: what to prepare, what to run, and what the one error line must name.
struct Refusal {
    const char* name;
    std::function<QStringList(Scene&)> prepare;  ///< makes its files; returns the arguments
    QStringList mentions;                        ///< "{dir}" stands for the scene's folder
    bool rootOnly = false;
};

const std::vector<Refusal>& refusals() {
    using S = Scene;
    static const std::vector<Refusal> cases{
        // --- inputs that are FIFOs: each of these blocked forever in open() ---
        {"validate CONFIG fifo",
         [](S& s) {
             s.fifo("c.json");
             return QStringList{"validate", s.path("c.json")};
         },
         {"CONFIG", "{dir}/c.json", "FIFO"}},
        {"train CONFIG fifo",
         [](S& s) {
             s.fifo("c.json");
             return QStringList{"train", s.path("c.json")};
         },
         {"CONFIG", "{dir}/c.json", "FIFO"}},
        {"train CONFIG fifo --set",
         [](S& s) {
             s.fifo("c.json");
             return QStringList{"train", s.path("c.json"), "--set", "steps=1"};
         },
         {"CONFIG", "{dir}/c.json", "FIFO"}},
        {"data.path fifo",
         [](S& s) {
             s.fifo("d.csv");
             s.write("f.json", config(R"({"source": "csv", "path": "d.csv", "global_batch_size": 2})"));
             return QStringList{"validate", s.path("f.json")};
         },
         {"data.path", "d.csv", "FIFO"}},
        {"data.images fifo",
         [](S& s) {
             s.fifo("i.idx");
             s.write("f.json", config(R"({"source": "idx", "images": "i.idx", "labels": "l.idx", "global_batch_size": 2})"));
             return QStringList{"validate", s.path("f.json")};
         },
         {"data.images", "i.idx", "FIFO"}},
        {"--init-weights fifo",
         [](S& s) {
             s.fifo("w");
             return QStringList{"train", s.path("run.json"), "--init-weights", s.path("w")};
         },
         {"--init-weights", "{dir}/w", "FIFO"}},
        {"--resume fifo",
         [](S& s) {
             s.fifo("c");
             return QStringList{"train", s.path("run.json"), "--resume", s.path("c")};
         },
         {"--resume", "{dir}/c", "FIFO"}},
        {"varlab SCRIPT fifo",
         [](S& s) {
             s.fifo("s.json");
             return QStringList{"varlab", s.path("s.json")};
         },
         {"SCRIPT", "{dir}/s.json", "FIFO"}},
        {"--metrics fifo",
         [](S& s) {
             s.fifo("m");
             return QStringList{"train", s.path("run.json"), "--metrics", s.path("m")};
         },
         {"--metrics", "{dir}/m", "FIFO"}},
        {"--trace fifo",
         [](S& s) {
             s.fifo("t");
             return QStringList{"train", s.path("run.json"), "--trace", s.path("t")};
         },
         {"--trace", "{dir}/t", "FIFO"}},
        // --- devices: /dev/zero was read until memory ran out ---
        {"data.path /dev/zero",
         [](S& s) {
             s.write("f.json", config(R"({"source": "csv", "path": "/dev/zero", "global_batch_size": 2})"));
             return QStringList{"validate", s.path("f.json")};
         },
         {"data.path", "/dev/zero", "character device"}},
        {"data.images /dev/zero",
         [](S& s) {
             s.write("f.json", config(R"({"source": "idx", "images": "/dev/zero", "labels": "/dev/zero", "global_batch_size": 2})"));
             return QStringList{"validate", s.path("f.json")};
         },
         {"data.images", "/dev/zero", "character device"}},
        {"CONFIG /dev/zero --set",
         [](S&) {
             return QStringList{"train", "/dev/zero", "--set", "steps=1"};
         },
         {"CONFIG", "/dev/zero", "character device"}},
        {"validate CONFIG /dev/zero",
         [](S&) {
             return QStringList{"validate", "/dev/zero"};
         },
         {"CONFIG", "/dev/zero", "character device"}},
        // --- size caps, checked before reading ---
        {"200 MB config --set",
         [](S& s) {
             s.sparse("big.json", 200'000'000);
             return QStringList{"train", s.path("big.json"), "--set", "steps=1"};
         },
         {"CONFIG", "{dir}/big.json", "16 MiB"}},
        {"200 MB config",
         [](S& s) {
             s.sparse("big.json", 200'000'000);
             return QStringList{"validate", s.path("big.json")};
         },
         {"CONFIG", "{dir}/big.json", "16 MiB"}},
        {"300 MB CSV",
         [](S& s) {
             s.sparse("big.csv", 300'000'000);
             s.write("f.json", config(R"({"source": "csv", "path": "big.csv", "global_batch_size": 2})"));
             return QStringList{"validate", s.path("f.json")};
         },
         {"data.path", "big.csv", "256 MiB"}},
        {"gzip bomb",
         [](S& s) {
             s.idxGzip("bomb.idx.gz", 300'000);
             s.write("f.json", config(R"({"source": "idx", "images": "bomb.idx.gz", "labels": "l.idx", "global_batch_size": 2})"));
             return QStringList{"validate", s.path("f.json")};
         },
         {"data.images", "bomb.idx.gz", "256 MiB"}},
        {"300 MB IDX",
         [](S& s) {
             s.sparse("big.idx", 16 + 300'000 * 32 * 32,
                      bigEndian32(0x00000803) + bigEndian32(300'000) + bigEndian32(32) + bigEndian32(32));
             s.write("f.json", config(R"({"source": "idx", "images": "big.idx", "labels": "l.idx", "global_batch_size": 2})"));
             return QStringList{"validate", s.path("f.json")};
         },
         {"data.images", "big.idx", "256 MiB"}},
        {"65 MiB varlab script",
         [](S& s) {
             s.sparse("s.json", (64 << 20) + 1);
             return QStringList{"varlab", s.path("s.json")};
         },
         {"SCRIPT", "{dir}/s.json", "64 MiB"}},
        {"3 GB weights",
         [](S& s) {
             s.sparse("w", 3'000'000'000);
             return QStringList{"train", s.path("run.json"), "--init-weights", s.path("w")};
         },
         {"--init-weights", "{dir}/w", "2 GiB"}},
        // --- outputs that would overwrite an input or each other ---
        {"--metrics is CONFIG",
         [](S& s) {
             return QStringList{"train", s.path("run.json"), "--metrics", s.path("run.json")};
         },
         {"--metrics", "CONFIG", "{dir}/run.json"}},
        {"--save-weights is data.path",
         [](S& s) {
             return QStringList{"train", s.path("csv.json"), "--save-weights", s.path("data.csv")};
         },
         {"--save-weights", "data.path", "{dir}/data.csv"}},
        {"--trace links to CONFIG",
         [](S& s) {
             QFile::link(s.path("run.json"), s.path("t.json"));
             return QStringList{"train", s.path("run.json"), "--trace", s.path("t.json")};
         },
         {"--trace", "CONFIG", "{dir}/t.json"}},
        {"--metrics is --trace",
         [](S& s) { return QStringList{"train", s.path("run.json"), "--metrics", s.path("o.json"), "--trace", s.path("./o.json")}; },
         {"--metrics", "--trace", "{dir}/./o.json"}},
        {"--checkpoint is --init-weights",
         [](S& s) {
             s.write("w", "weights");
             return QStringList{"train", s.path("run.json"), "--init-weights", s.path("w"), "--checkpoint", s.path("w")};
         },
         {"--checkpoint", "--init-weights", "{dir}/w"}},
        {"--save-weights is --resume",
         [](S& s) {
             s.write("c", "checkpoint");
             return QStringList{"train", s.path("run.json"), "--resume", s.path("c"), "--save-weights", s.path("c")};
         },
         {"--save-weights", "--resume", "{dir}/c"}},
        // --- outputs that are not regular files, or cannot be written ---
        {"--save-weights char device",
         [](S& s) {
             // A copy of /dev/null in the scene: replacing the system's would break the machine.
             if (::mknod(local(s.path("null")).c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) return QStringList{};
             return QStringList{"train", s.path("run.json"), "--save-weights", s.path("null")};
         },
         {"--save-weights", "{dir}/null", "character device"},
         true},
        {"--save-weights directory",
         [](S& s) {
             QDir(s.folder()).mkdir("w");
             return QStringList{"train", s.path("run.json"), "--save-weights", s.path("w")};
         },
         {"--save-weights", "{dir}/w", "directory"}},
        {"--metrics in a missing folder",
         [](S& s) {
             return QStringList{"train", s.path("run.json"), "--metrics", s.path("nope/m.jsonl")};
         },
         {"--metrics", "{dir}/nope/m.jsonl", "No such file or directory"}},
        {"--checkpoint in a read-only folder",
         [](S& s) {
             // Permissions do not stop root, so root gets /sys, where nobody may create a file.
             if (::geteuid() == 0) return QStringList{"train", s.path("run.json"), "--checkpoint", "/sys/distlab-c"};
             QDir(s.folder()).mkdir("ro");
             ::chmod(local(s.path("ro")).c_str(), 0555);
             return QStringList{"train", s.path("run.json"), "--checkpoint", s.path("ro/distlab-c")};
         },
         {"--checkpoint", "distlab-c: cannot create a temporary file in"}},
        // --- a run rejected at start-up: its metrics file was emptied ---
        {"rejected --fault keeps metrics",
         [](S& s) {
             s.write("ps.json", "{" + QByteArray(kModel) + R"(, "data": {"source": "synthetic", "kind": "xor", "samples": 64,
                 "global_batch_size": 8}, "strategy": {"type": "parameter_server", "workers": 2}, "steps": 20})");
             return QStringList{"train", s.path("ps.json"), "--metrics", s.path("m.jsonl"), "--fault", "kill-worker:9@1"};
         },
         {"--fault", "kill-worker:9"}},
    };
    return cases;
}

}  // namespace

class TestCliFiles : public QObject {
    Q_OBJECT

    /// Runs distlab-cli with a file-size limit (a full disk) set in the child only.
    static CliResult runWithFileSizeLimit(const QStringList& arguments, rlim_t bytes) {
        QProcess process;
        process.setChildProcessModifier([bytes] {
            ::signal(SIGXFSZ, SIG_IGN);  // write() then fails with EFBIG instead of killing the process
            rlimit limit{bytes, bytes};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
        process.start(QStringLiteral(DISTLAB_CLI_PATH), arguments);
        CliResult result;
        result.finished = process.waitForFinished(30000);
        if (!result.finished) process.kill();
        result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        result.out = QString::fromUtf8(process.readAllStandardOutput());
        result.err = QString::fromUtf8(process.readAllStandardError());
        return result;
    }

    static void expectJsonLines(const QString& path, int atLeast) {
        const QList<QByteArray> lines = readAll(path).split('\n');
        QVERIFY2(readAll(path).endsWith('\n'), "the last line is cut");
        int count = 0;
        for (const QByteArray& line : lines) {
            if (line.isEmpty()) continue;
            QJsonParseError error{};
            QJsonDocument::fromJson(line, &error);
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable("not JSON: " + QString::fromUtf8(line)));
            ++count;
        }
        QVERIFY2(count >= atLeast, qPrintable(QStringLiteral("%1 lines").arg(count)));
    }

private slots:
    void refused_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < refusals().size(); ++i) QTest::newRow(refusals()[i].name) << int(i);
    }

    void refused() {
        QFETCH(int, index);
        const Refusal& row = refusals()[std::size_t(index)];
        if (row.rootOnly && ::geteuid() != 0) QSKIP("making a device node needs root (mknod)");
        Scene scene;
        QStringList arguments = row.prepare(scene);
        if (QTest::currentTestFailed()) return;
        if (!arguments.isEmpty() && arguments.first() == "train") arguments << "--quiet";
        QVERIFY2(arguments.size() > 1, "could not prepare the case");
        const QStringList before = snapshot(scene.folder());
        QElapsedTimer timer;
        timer.start();
        const CliResult r = runCli(arguments, 20000);
        QVERIFY2(r.finished, "distlab-cli hung");
        QVERIFY2(timer.elapsed() < 15000, "took far too long to refuse");
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1, stderr: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.out.isEmpty(), qPrintable("trained anyway: " + r.out));
        const QString line = r.err.trimmed();
        QVERIFY2(line.startsWith("error: ") && !line.contains('\n'), qPrintable(line));
        for (QString mention : row.mentions) {
            mention.replace("{dir}", scene.folder());
            QVERIFY2(line.contains(mention), qPrintable(QString("'%1' does not name '%2'").arg(line, mention)));
        }
        QCOMPARE(snapshot(scene.folder()), before);
    }

    void metricsAndWeightsWriteThroughSymlinks() {
        Scene scene;
        scene.write("real.jsonl", "old\n");
        QVERIFY(QFile::link(scene.path("real.jsonl"), scene.path("m.jsonl.link")));
        QVERIFY(::symlink("w.safetensors", local(scene.path("w.link")).c_str()) == 0);  // dangling, relative
        const CliResult r = runCli(
            {"train", scene.path("run.json"), "--metrics", scene.path("m.jsonl.link"), "--save-weights", scene.path("w.link"), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(QFileInfo(scene.path("m.jsonl.link")).isSymLink());
        QVERIFY(QFileInfo(scene.path("w.link")).isSymLink());
        expectJsonLines(scene.path("real.jsonl"), 20);
        QVERIFY(QFileInfo(scene.path("w.safetensors")).size() > 8);
        QVERIFY(QFileInfo(scene.path("w.safetensors")).isFile());
    }

    void checkpointMayBeTheResumedFile() {
        Scene scene;
        QCOMPARE(runCli({"train", scene.path("run.json"), "--steps", "10", "--checkpoint", scene.path("c"), "--quiet"}).exitCode, 0);
        const CliResult r =
            runCli({"train", scene.path("run.json"), "--resume", scene.path("c"), "--checkpoint", scene.path("c"), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("\"steps\":20"), qPrintable(r.out));
    }

    void fullDiskKeepsTheOldMetrics() {
        Scene scene;
        const QByteArray old = readAll(scene.path("m.jsonl"));
        const CliResult r =
            runWithFileSizeLimit({"train", scene.path("run.json"), "--steps", "200", "--metrics", scene.path("m.jsonl"), "--quiet"}, 4096);
        QVERIFY(r.finished);
        QVERIFY2(r.exitCode == 1, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains(scene.path("m.jsonl")) && r.err.contains("File too large"), qPrintable(r.err));
        QCOMPARE(readAll(scene.path("m.jsonl")), old);
        const QStringList files{"csv.json", "data.csv", "lab.json", "m.jsonl", "run.json"};
        QCOMPARE(QDir(scene.folder()).entryList(QDir::Files | QDir::Hidden, QDir::Name), files);  // nothing left behind
    }

    void killedRunLeavesWholeLines() {
        Scene scene;
        QProcess process;
        process.start(QStringLiteral(DISTLAB_CLI_PATH),
                      {"train", scene.path("run.json"), "--steps", "100000000", "--checkpoint", scene.path("c"), "--checkpoint-every", "50",
                       "--metrics", scene.path("m.jsonl"), "--trace", scene.path("t.json"), "--quiet"});
        QVERIFY(process.waitForStarted());
        // Wait for a few publishes (the old one-line file grows), then kill without warning.
        QTRY_VERIFY_WITH_TIMEOUT(readAll(scene.path("m.jsonl")).count('\n') >= 150, 20000);
        process.kill();  // SIGKILL
        QVERIFY(process.waitForFinished(10000));
        expectJsonLines(scene.path("m.jsonl"), 150);
        QJsonParseError error{};
        QJsonDocument::fromJson(readAll(scene.path("t.json")), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, "the trace is not valid JSON");
    }
};

QTEST_GUILESS_MAIN(TestCliFiles)
#include "test_cli_files.moc"
