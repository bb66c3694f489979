// test_storage_facts.cpp — the per-call WILLNEED cap read from a fake sysfs
// tree, and the filesystem of a real file.
#include "storage_facts.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace pg_cachectl {
namespace {

using test::TempDirectory;

void write_value(const std::string &path, const std::string &value) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << value << "\n";
}

TEST_CASE("the cap is the larger of read_ahead_kb and max_sectors_kb") {
    TempDirectory sysfs;
    write_value(sysfs.file("dev/block/8:0/queue/read_ahead_kb"), "128");
    write_value(sysfs.file("dev/block/8:0/queue/max_sectors_kb"), "1280");
    CHECK(willneed_cap_bytes_of_device(8, 0, sysfs.path()) == 1280 * 1024);

    write_value(sysfs.file("dev/block/254:0/queue/read_ahead_kb"), "8192");
    write_value(sysfs.file("dev/block/254:0/queue/max_sectors_kb"), "4096");
    CHECK(willneed_cap_bytes_of_device(254, 0, sysfs.path()) == 8192 * 1024);
}

TEST_CASE("a partition uses its disk's queue") {
    TempDirectory sysfs;
    // sysfs links dev/block/8:1 to .../sda/sda1, whose queue is in .../sda
    write_value(sysfs.file("devices/sda/queue/read_ahead_kb"), "512");
    write_value(sysfs.file("devices/sda/queue/max_sectors_kb"), "256");
    std::filesystem::create_directories(sysfs.file("devices/sda/sda1"));
    std::filesystem::create_directories(sysfs.file("dev/block"));
    std::filesystem::create_directory_symlink(sysfs.file("devices/sda/sda1"), sysfs.file("dev/block/8:1"));
    CHECK(willneed_cap_bytes_of_device(8, 1, sysfs.path()) == 512 * 1024);
}

TEST_CASE("a device without a queue uses its bdi, else 1 MiB") {
    TempDirectory sysfs;
    write_value(sysfs.file("class/bdi/0:45/read_ahead_kb"), "2048");
    CHECK(willneed_cap_bytes_of_device(0, 45, sysfs.path()) == 2048 * 1024);
    CHECK(willneed_cap_bytes_of_device(0, 46, sysfs.path()) == 1024 * 1024);
    write_value(sysfs.file("class/bdi/0:47/read_ahead_kb"), "garbage");
    CHECK(willneed_cap_bytes_of_device(0, 47, sysfs.path()) == 1024 * 1024);
}

TEST_CASE("the real file of a test is on a filesystem that takes advice") {
    test::TempFile file;
    CHECK(filesystem_kind(file.fd()) == FilesystemKind::ordinary);
    CHECK(willneed_cap_bytes(file.fd()) >= 4096); // whatever this machine's device says
}

} // namespace
} // namespace pg_cachectl
