package dev.tierlock.benchmarks;

import java.util.Map;

/**
 * One JMH result: the benchmark method, its parameters, and its average time per operation.
 *
 * @param method the benchmark method's name
 * @param params its parameters, by name
 * @param micros the mean time of one operation in microseconds
 * @param deviation the standard deviation of the measured iterations, in microseconds
 */
record JmhScore(String method, Map<String, String> params, double micros, double deviation) {}
