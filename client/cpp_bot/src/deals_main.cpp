// uno-cpp-deals: the deal check of deals.cpp on a recorded game, for tests
// and for checking a game after the fact. Reads one serialized PlayResponse
// (binary protobuf) on stdin: the seat's TableMessages of one game, from the
// welcome that carries deal_commitment to deal_revealed, in seq order. Prints
// the check as one line of JSON ({fair, checked, problems}) and exits 0 when
// fair, 1 when not (or when there was nothing to check), 2 on bad input.
#include <iostream>
#include <iterator>
#include <string>

#include "deals.h"
#include "summary.h"

int main() {
  const std::string input(std::istreambuf_iterator<char>(std::cin), {});
  unoplay::v1::PlayResponse recorded;
  if (!recorded.ParseFromString(input)) {
    std::cerr << "uno-cpp-deals: stdin is not a serialized unoplay.v1.PlayResponse\n";
    return 2;
  }
  unobot::DealRecorder recorder;
  uint64_t last_seq = 0;
  for (const auto& m : recorded.messages()) {
    if (m.seq() != last_seq + 1) recorder.on_gap();
    last_seq = m.seq();
    recorder.on_message(m);
  }
  const auto& check = recorder.result();
  if (!check) {
    std::cerr << "uno-cpp-deals: no deal_revealed: nothing to check\n";
    return 1;
  }
  std::cout << unobot::to_json(*check) << std::endl;
  return check->fair == true ? 0 : 1;
}
