// Interrupt handling on a dedicated thread reading a signalfd, so the cleanup is ordinary code that can
// take locks instead of having to be async-signal-safe.
#include "cli/interrupt.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "runtime/file_util.h"

namespace ptq {

namespace {

int g_signal_fd = -1;
// Held by whichever thread decides how the process ends; never released after that. Signals are only
// dequeued under it, so a signal sent before ExitCodeUnlessInterrupted is seen there or is being
// handled by the interrupt thread. Never destroyed (static destructors run while that thread lives).
std::mutex* const g_ending = new std::mutex;

bool Ignored(int signo) {
  struct sigaction current;
  return ::sigaction(signo, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

// Dequeues a pending SIGINT or SIGTERM; 0 when none is pending. REQUIRES: g_ending held.
int TakeSignal() {
  signalfd_siginfo info;
  return ::read(g_signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info) ? static_cast<int>(info.ssi_signo)
                                                                                      : 0;
}

[[noreturn]] void ExitInterrupted(int signo) {
  RemoveTemporaryFilesBeforeExit();
  const std::string message =
      std::string("ptq: interrupted (") + (signo == SIGINT ? "SIGINT" : "SIGTERM") + "); temporary files removed\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, message.data(), message.size());
  ::_exit(128 + signo);
}

}  // namespace

void StopCleanlyOnInterrupt() {
  sigset_t set;
  sigemptyset(&set);
  for (int signo : {SIGINT, SIGTERM}) {
    if (!Ignored(signo)) sigaddset(&set, signo);
  }
  if (sigismember(&set, SIGINT) == 0 && sigismember(&set, SIGTERM) == 0) return;
  if (::pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // then the default action applies
  g_signal_fd = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  try {
    if (g_signal_fd < 0) throw std::system_error(errno, std::generic_category());
    std::thread([] {
      for (;;) {
        pollfd p = {g_signal_fd, POLLIN, 0};
        if (::poll(&p, 1, -1) <= 0) continue;
        std::lock_guard<std::mutex> lock(*g_ending);
        if (const int signo = TakeSignal()) ExitInterrupted(signo);
      }
    }).detach();
  } catch (const std::system_error&) {
    if (g_signal_fd >= 0) ::close(g_signal_fd);
    g_signal_fd = -1;
    ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);  // no thread to take them: the default action applies
  }
}

int ExitCodeUnlessInterrupted(int code) {
  if (g_signal_fd < 0) return code;
  g_ending->lock();  // never released: the process ends with `code` or in ExitInterrupted
  if (const int signo = TakeSignal()) ExitInterrupted(signo);
  return code;
}

}  // namespace ptq
