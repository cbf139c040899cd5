// A recording whose method names are the hard cases: overloads, lambdas and hidden classes
// with run-specific addresses, a native method, and line tables.
#pragma once

#include <string>

namespace stackscope::testing {

// Writes it to `path` (cpu mode, 10ms, one sample per 10ms, 15 samples, 2 lost):
//
//   methods  app.Main.main([Ljava/lang/String;)V
//            app.Main.work(I)D               lines bci 0 -> 20, 5 -> 21, 9 -> 22
//            app.Main.work(Ljava/lang/String;)D  lines bci 0 -> 30, 4 -> 31
//            app.Main$$Lambda$14.0x0000000800c0b000.run()V   (JDK 17 spelling)
//            app.Main$$Lambda.0x00007f3a1c00a218.run()V      (JDK 21 spelling, another lambda)
//            app.Main.lambda$main$0()V, app.Main.lambda$main$1()V
//            java.lang.Thread.run()V
//            app.Fmt.format(Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;
//            app.Fmt.format(Ljava/util/Locale;Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;
//            java.lang.Object.hashCode()I    (native: bci -3)
//   stacks (outermost first) and samples, thread "main" unless said
//     main@1 > work(int)@5            3 samples, 0..20ms
//     main@2 > work(int)@9            4 samples, 30..60ms
//     main@3 > work(String)@4         3 samples, 70..90ms
//     Thread.run > Lambda$14.run > lambda$main$0    2 samples, thread "pool-1", 100..110ms
//     Thread.run > Lambda.0x….run > lambda$main$1   1 sample,  thread "pool-1", 120ms
//     main@4 > format(String,Object[]) > format(Locale,String,Object[]) > hashCode@-3
//                                     2 samples, 130..140ms
//   lost     25ms not_walkable 1, 125ms gc_active 1
void writeNamesRecording(const std::string& path);

}  // namespace stackscope::testing
