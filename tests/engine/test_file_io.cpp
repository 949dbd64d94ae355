// The one way files are opened (InputFile) and written (AtomicFileWriter, StagedFile): what is
// refused, with which message, and that nothing hangs or changes a file it should not.
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <zlib.h>

#include "distlab/files/atomic_file.hpp"
#include "file_test_support.hpp"
#include "distlab/files/input_file.hpp"
#include "distlab/files/staged_file.hpp"
#include "files/byte_stream.hpp"

using namespace distlab;

namespace {

template <typename T>
QString errorOf(const Result<T>& result) {
    return result.ok() ? QStringLiteral("<no error>") : QString::fromStdString(result.error().message);
}

// `bytes` zeros, gzipped at the fastest level: 257 MiB become about 1.2 MB in ~2 s.
QByteArray gzipZeros(qint64 bytes) {
    z_stream stream{};
    deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
    const QByteArray zeros(1 << 20, '\0');
    QByteArray out;
    char buffer[1 << 16];
    for (qint64 left = bytes; left >= 0; left -= zeros.size()) {
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
        stream.avail_in = uInt(std::min<qint64>(left, zeros.size()));
        const int flush = left <= zeros.size() ? Z_FINISH : Z_NO_FLUSH;
        do {
            stream.next_out = reinterpret_cast<Bytef*>(buffer);
            stream.avail_out = sizeof buffer;
            deflate(&stream, flush);
            out.append(buffer, int(sizeof buffer - stream.avail_out));
        } while (stream.avail_out == 0);
        if (flush == Z_FINISH) break;
    }
    deflateEnd(&stream);
    return out;
}

}  // namespace

class TestFileIo : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void readsARegularFile() {
        writeRaw(path("run.json"), "{\"steps\": 3}");
        const auto text = readInputFile(InputKind::Config, {"CONFIG", local(path("run.json")), {}});
        QVERIFY2(text.ok(), qPrintable(errorOf(text)));
        QCOMPARE(*text, std::string("{\"steps\": 3}"));
        writeRaw(path("empty.json"), "");
        QCOMPARE(*readInputFile(InputKind::Config, {"CONFIG", local(path("empty.json")), {}}), std::string());
    }

    // Each refusal names the field and the path; none blocks (a FIFO without a writer hung open()).
    void refusesWhatIsNotARegularFile_data() {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("reason");
        QTest::newRow("FIFO") << path("pipe") << "it is a FIFO (named pipe), not a regular file";
        QTest::newRow("directory") << m_dir.path() << "it is a directory, not a regular file";
        QTest::newRow("character device") << "/dev/zero"
                                          << "it is a character device, not a regular file";
        QTest::newRow("socket") << path("sock") << "it is a socket, not a regular file";
        QTest::newRow("missing") << path("nope.json") << "No such file or directory";
    }
    void refusesWhatIsNotARegularFile() {
        QFETCH(QString, target);
        QFETCH(QString, reason);
        if (!QFile::exists(path("pipe"))) QVERIFY(::mkfifo(local(path("pipe")).c_str(), 0644) == 0);
        int socketFd = -1;
        if (QTest::currentDataTag() == QLatin1String("socket")) {
            QFile::remove(target);
            socketFd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un address{};
            address.sun_family = AF_UNIX;
            const std::string where = local(target);
            QVERIFY(where.size() < sizeof address.sun_path);
            std::memcpy(address.sun_path, where.c_str(), where.size() + 1);
            QVERIFY(::bind(socketFd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        }
        for (InputKind kind : {InputKind::Config, InputKind::Csv, InputKind::Idx, InputKind::Weights}) {
            const auto text = readInputFile(kind, {"data.path", "shown/as/written", local(target)});
            QCOMPARE(errorOf(text), "data.path: cannot read \"shown/as/written\" (" + target + "): " + reason);
        }
        if (socketFd >= 0) ::close(socketFd);
    }

    void refusesAFileOverItsCap() {
        // A sparse file: its size is what counts, checked with fstat before reading a byte.
        const QString big = path("big.json");
        writeRaw(big, "");
        QVERIFY(::truncate(local(big).c_str(), (16 << 20) + 1) == 0);
        QCOMPARE(errorOf(readInputFile(InputKind::Config, {"CONFIG", local(big), {}})),
                 "CONFIG: cannot read \"" + big + "\": it is 16777217 bytes; a run config may hold at most 16 MiB");
        QVERIFY(readInputFile(InputKind::Csv, {"data.path", local(big), {}}).ok());  // a CSV file may be larger
        QCOMPARE(inputLimits(InputKind::Idx).maxBytes, std::uint64_t{256} << 20);
        QCOMPARE(inputLimits(InputKind::Weights).maxBytes, std::uint64_t{2} << 30);
    }

    // Inflating stops at the kind's cap whatever the file claims: a small gzip bomb cannot fill memory.
    void gzipStopsAtTheCap() {
        const QString bomb = path("bomb.gz");
        writeRaw(bomb, gzipZeros((256 << 20) + (1 << 20)));
        QVERIFY(QFileInfo(bomb).size() < (4 << 20));
        QString message;
        try {
            const InputFile file = InputFile::open(InputKind::Idx, {"data.images", local(bomb), {}});
            ByteStream stream(file);
            std::vector<std::uint8_t> block(1 << 20);
            while (stream.read(block.data(), block.size()) > 0) {
            }
        } catch (const InputError& error) {
            message = QString::fromUtf8(error.what());
        }
        QCOMPARE(message, "data.images: cannot read \"" + bomb +
                              "\": after gunzip it holds more than 268435456 bytes; an IDX file may hold at most 256 MiB");
    }

    void writesThroughASymlink() {
        writeRaw(path("real.json"), "old");
        QVERIFY(QFile::link(path("real.json"), path("link.json")));
        QVERIFY(writeFileAtomically(local(path("link.json")), "new").ok());
        QCOMPARE(QFileInfo(path("link.json")).symLinkTarget(), path("real.json"));  // still a link
        QCOMPARE(readAll(path("real.json")), QByteArray("new"));
        // A relative, dangling link: its target is created where the link points.
        QVERIFY(::symlink("made.json", local(path("dangling.json")).c_str()) == 0);
        QVERIFY(writeFileAtomically(local(path("dangling.json")), "made").ok());
        QCOMPARE(readAll(path("made.json")), QByteArray("made"));
        QVERIFY(QFileInfo(path("dangling.json")).isSymLink());
        // A loop is an error, not a hang.
        QVERIFY(::symlink("loop-b", local(path("loop-a")).c_str()) == 0);
        QVERIFY(::symlink("loop-a", local(path("loop-b")).c_str()) == 0);
        QCOMPARE(errorOf(writeFileAtomically(local(path("loop-a")), "x")),
                 path("loop-a") + ": cannot follow the symbolic link: Too many levels of symbolic links");
    }

    void refusesAnOutputThatIsNotARegularFile() {
        QTemporaryDir folder;
        const QString pipe = folder.filePath("pipe");
        QVERIFY(::mkfifo(local(pipe).c_str(), 0644) == 0);
        QCOMPARE(errorOf(writeFileAtomically(local(pipe), "x")), pipe + ": cannot write: it is a FIFO (named pipe), not a regular file");
        QCOMPARE(errorOf(StagedFile::create(local(pipe))), pipe + ": cannot write: it is a FIFO (named pipe), not a regular file");
        QVERIFY(QFile::link(pipe, folder.filePath("to-pipe")));  // a link to it is refused the same way
        QVERIFY(!writeFileAtomically(local(folder.filePath("to-pipe")), "x").ok());
        QCOMPARE(errorOf(checkOutputPath("--metrics", local(pipe))),
                 "--metrics: " + pipe + ": cannot write: it is a FIFO (named pipe), not a regular file");
        QVERIFY(isFifo(pipe));
        QCOMPARE(errorOf(checkOutputPath("--save-weights", "/dev/null")),
                 QString("--save-weights: /dev/null: cannot write: it is a character device, not a regular file"));
        QCOMPARE(entriesOf(folder.path()), (QStringList{"pipe", "to-pipe"}));
    }

    void checkOutputPathFindsAnUnusableFolder() {
        QTemporaryDir folder;
        QVERIFY(checkOutputPath("--metrics", local(folder.filePath("m.jsonl"))).ok());
        QCOMPARE(entriesOf(folder.path()), QStringList{});  // the probe leaves nothing
        const QString missing = folder.filePath("nope/m.jsonl");
        QCOMPARE(errorOf(checkOutputPath("--metrics", local(missing))), "--metrics: " + missing + ": cannot create a temporary file in \"" +
                                                                            folder.filePath("nope") + "\": No such file or directory");
        if (::geteuid() != 0) {
            QVERIFY(QDir(folder.path()).mkdir("ro"));
            QVERIFY(::chmod(local(folder.filePath("ro")).c_str(), 0555) == 0);
            QVERIFY(errorOf(checkOutputPath("--trace", local(folder.filePath("ro/t.json")))).endsWith("Permission denied"));
        }
    }

    void sameFileSeesThroughNames() {
        QTemporaryDir folder;
        const QString a = folder.filePath("a.json");
        writeRaw(a, "a");
        writeRaw(folder.filePath("b.json"), "b");
        QVERIFY(QFile::link(a, folder.filePath("link.json")));
        QVERIFY(::link(local(a).c_str(), local(folder.filePath("hard.json")).c_str()) == 0);
        QVERIFY(sameFile(local(a), local(folder.filePath("link.json"))));
        QVERIFY(sameFile(local(a), local(folder.filePath("hard.json"))));
        QVERIFY(sameFile(local(a), local(folder.path() + "/./sub/../a.json")) == false);  // sub/ does not exist
        QVERIFY(sameFile(local(a), local(folder.path() + "/./a.json")));
        QVERIFY(!sameFile(local(a), local(folder.filePath("b.json"))));
        // Neither exists yet: the same place once links are followed.
        QVERIFY(sameFile(local(folder.filePath("new.json")), local(folder.path() + "/./new.json")));
        QVERIFY(::symlink("later.json", local(folder.filePath("to-later")).c_str()) == 0);
        QVERIFY(sameFile(local(folder.filePath("to-later")), local(folder.filePath("later.json"))));
        QVERIFY(!sameFile(local(folder.filePath("new.json")), local(folder.filePath("other.json"))));
    }

    void stagedFileTouchesTheTargetOnlyWhenPublished() {
        QTemporaryDir folder;
        const QString target = folder.filePath("m.jsonl");
        writeRaw(target, "previous\n");
        {
            auto file = StagedFile::create(local(target));
            QVERIFY2(file.ok(), qPrintable(errorOf(file)));
            file->append("one\n");
            QCOMPARE(readAll(target), QByteArray("previous\n"));
            QCOMPARE(entriesOf(folder.path()), QStringList{"m.jsonl"});  // the staging file has no name
            QVERIFY(file->publish("]").ok());
            QCOMPARE(readAll(target), QByteArray("one\n]"));
            file->append("two\n");
            QCOMPARE(readAll(target), QByteArray("one\n]"));
            QVERIFY(file->publish().ok());
            QCOMPARE(readAll(target), QByteArray("one\ntwo\n"));
            file->append("three\n");
        }  // dropped without close: the last published version stays
        QCOMPARE(readAll(target), QByteArray("one\ntwo\n"));
        QCOMPARE(entriesOf(folder.path()), QStringList{"m.jsonl"});

        auto closed = StagedFile::create(local(target));
        QVERIFY(closed->close().ok());
        QCOMPARE(readAll(target), QByteArray());
        QCOMPARE(errorOf(closed->publish()), target + ": already closed");
    }

    void stagedFileKeepsTheLastVersionOnAFullDisk() {
        // A file-size limit makes writing fail half-way (EFBIG), even for root.
        QTemporaryDir folder;
        const QString target = folder.filePath("m.jsonl");
        writeRaw(target, "old\n");
        auto file = StagedFile::create(local(target));
        QVERIFY(file.ok());
        Status published = Ok{};
        {
            const FileSizeLimit limit(4096);
            QVERIFY(limit.active());
            const std::string line(100, 'x');
            for (int i = 0; i < 10000; ++i) file->append(line);
            published = file->publish();
        }
        QCOMPARE(errorOf(published), target + ": cannot write: File too large");
        QCOMPARE(readAll(target), QByteArray("old\n"));
        QCOMPARE(entriesOf(folder.path()), QStringList{"m.jsonl"});
    }
};

QTEST_APPLESS_MAIN(TestFileIo)
#include "test_file_io.moc"
