// Closed-form time and memory of a planned program.
#include "sim/plan/book_evaluation.hpp"
#include "models/hardware/hbm_fit.hpp"

namespace podsim {

StepTimes program_order_book_times(const PlannedProgram& program) {
  StepTimes times(program.ops.size());
  double now = 0;
  for (std::size_t op = 0; op < program.ops.size(); ++op)
    for (const auto& step : program.ops[op].steps) {
      times[op].emplace_back(now, now + step.book.time_s);
      now += step.book.time_s;
    }
  return times;
}

BookEvaluation evaluate_book(const PlannedProgram& program) {
  BookEvaluation out;
  out.time_s = program.book_time_s;
  out.memory = memory_profile(program, program_order_book_times(program));
  out.fits_hbm = fits_hbm(out.memory.peak_bytes, program.hbm_bytes);
  return out;
}

}  // namespace podsim
